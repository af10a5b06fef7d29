// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The collective sweep's figures as `sweep summarize --json` and `cells --json` print them
// (docs/formats.md): per size the slowest rank's fastest and typical time, algbw and busbw; the
// fit, or why it was refused; and a DDP cell's prediction from the sweep.

#include "analysis/collective_sweep.h"
#include "analysis/ddp_prediction.h"
#include "store/sqlite_db.h"

#include <QJsonObject>

namespace commprof::report {

QJsonObject toJson(const analysis::SweepSeries& s, const analysis::LinearFit& fit);
QJsonObject toJson(const analysis::DdpPrediction& d);

// cells --json's figures of the store's sweep tables for one cell: a sweep's series with their
// fits ("sweep"), or a DDP cell's prediction ("prediction", "prediction_note", "sweep_cell").
void addSweepFigures(store::Database& db, const QString& cellKey, bool sweep, QJsonObject& cell);

} // namespace commprof::report
