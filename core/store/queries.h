// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The queries the GUI and the CLI share.

#include "store/cell_row.h"
#include "store/sqlite_db.h"
#include "trace/step_metrics.h"

#include <QJsonObject>

#include <optional>
#include <vector>

namespace commprof::store {

struct BucketRow {
    int rank = 0, iter = 0, index = 0;
    qint64 bytes = 0, nparams = 0, startNs = 0, endNs = 0;
    double seconds() const { return double(endNs - startNs) / 1e9; }
};

// One rank of a cell: medians over its traced steps and its two instruments.
struct RankFiguresRow {
    int rank = 0;
    std::optional<double> stepMs, commMs, exposedCommMs, hookMs, backendMs, agreement;
    bool agreementFlagged = false;
    QString agreementReason, traceError;
};

std::vector<CellRow> cells(Database& db, const QString& runDir = {});
std::vector<BucketRow> buckets(Database& db, const QString& cellKey);
// The same query prepared once for many cells: buckets(query, key) per cell.
Statement bucketsQuery(Database& db);
std::vector<BucketRow> buckets(Statement& query, const QString& cellKey);
std::vector<trace::StepMetrics> steps(Database& db, const QString& cellKey);
std::vector<RankFiguresRow> rankFigures(Database& db, const QString& cellKey);
QJsonObject toJson(const CellRow& c);

} // namespace commprof::store
