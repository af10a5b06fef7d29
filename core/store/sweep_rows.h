// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The store's rows of collective sweeps (kind: sweep cells: per kind their points and fit) and
// of the DDP prediction each DDP cell gets from the sweep of its layer and world size.

#include "analysis/collective_sweep.h"
#include "analysis/ddp_prediction.h"
#include "store/sqlite_db.h"

#include <optional>
#include <vector>

namespace commprof::store {

struct StoredSweep {
    analysis::SweepSeries series; // points without per-rank times
    analysis::LinearFit fit;
};

struct StoredPrediction {
    QString sweepCell; // the sweep cell's id; empty when there was none
    QString note;      // why there is no prediction
    std::optional<analysis::DdpPrediction> prediction;
};

void insertSweep(Database& db, const QString& cellKey,
                 const std::vector<analysis::SweepSeries>& series);
std::vector<StoredSweep> sweeps(Database& db, const QString& cellKey);
// A cell's points of one kind, by size, from a query prepared once for many cells.
Statement sweepPointsQuery(Database& db);
std::vector<analysis::SweepPoint> sweepPoints(Statement& query, const QString& cellKey,
                                              const QString& kind);

void insertPrediction(Database& db, const QString& cellKey, const StoredPrediction& p);
std::optional<StoredPrediction> prediction(Database& db, const QString& cellKey);

} // namespace commprof::store
