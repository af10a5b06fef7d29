// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// cells.csv: every cell, incomplete ones included with their status and reasons; then (after the
// columns earlier versions wrote, so their positions hold) its kind and, for a DDP cell, the
// all-reduce per step the sweep of its layer and world size predicted. The columns, their order
// and number formats are store/cell_columns.cpp's.

#include "store/cell_columns.h"
#include "store/queries.h"
#include "store/sweep_rows.h"

#include <QMap>
#include <QString>

namespace commprof::report {

using Predictions = QMap<QString, store::StoredPrediction>; // by cell id

// The stored predictions of the complete DDP cells among `cells`.
Predictions predictionsOf(store::Database& db, const std::vector<store::CellRow>& cells);

QString cellsCsv(const std::vector<store::CellRow>& cells, const Predictions& predictions = {});

} // namespace commprof::report
