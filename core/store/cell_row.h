// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One row of the `cells` table as the GUI and the CLI read it. Its columns, their SQL, JSON and
// CSV forms, are declared in store/cell_columns.cpp.

#include "analysis/cell_figures.h"

#include <QString>
#include <QStringList>
#include <QVariantMap>

#include <optional>

namespace commprof::store {

// The figures are the analysis' own struct (analysis/cell_figures.h): ingest stores what
// analyzeCell computed as it is.
struct CellRow : analysis::CellFigures {
    QString key, id, kind, status, layer, interconnect, model, family, backend, device, binding;
    QString runDir; // the results folder's canonical path
    int repeat = 0;
    // Every axis' value for the cell (matrix/axes.h: model, layer, world_size, the DDP settings
    // the matrix lists, repeat), as cell.json's "axes" spells them.
    QVariantMap axes;
    QStringList reasons;
    int worldSize = 0;
    double params = 0;
    std::optional<bool> feasible;
    std::optional<double> hostDemandBytes, deviceDemandBytes;
    // Derived when read (store/overlap_tax.h), never stored: how much longer the backward's
    // compute took than in the cell's `hook: local` twin.
    std::optional<double> overlapTaxMs, overlapTaxPercent;
    QString overlapTwin;
    bool complete() const { return status == "complete"; }
    bool isSweep() const { return kind == "sweep"; }
};

} // namespace commprof::store
