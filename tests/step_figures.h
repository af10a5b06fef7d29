// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The figures every step summary prints, by the names `commprof trace summarize --json` gives
// them, so that a test comparing a summary with the command's output lists them once.

#include "trace/step_metrics.h"

#include <QList>
#include <QPair>
#include <QString>

#include <utility>

inline QList<QPair<QString, double>> stepFigures(const commprof::trace::StepMetrics& m) {
    using M = commprof::trace::StepMetrics;
    static const std::pair<const char*, double M::*> kFigures[] = {
        {"step_us", &M::stepUs},
        {"compute_us", &M::computeUs},
        {"comm_us", &M::commUs},
        {"bookkeeping_us", &M::bookkeepingUs},
        {"memory_us", &M::memoryUs},
        {"overlap_us", &M::overlapUs},
        {"exposed_comm_us", &M::exposedCommUs}};
    QList<QPair<QString, double>> out;
    for (const auto& [name, figure] : kFigures) {
        out.append({name, m.*figure});
    }
    return out;
}
