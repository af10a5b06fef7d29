// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Everything a report draws and quotes, from the store. Aggregates, fitted lines and macros
// take complete cells only; incomplete and failed cells are carried along, flagged. Sweep cells
// (kind: sweep) have no steps or buckets: the DDP figures leave them out, and their series are
// kept apart, with each DDP cell's prediction from them.

#include "analysis/cost_model.h"
#include "analysis/recommendation.h"
#include "store/queries.h"
#include "store/sweep_rows.h"

#include <QJsonObject>
#include <QMap>

namespace commprof::report {

// The buckets one alpha-beta line is fitted to: those that crossed a link (complete DDP cells of
// world size > 1 whose hook sends them; `hook: local` reduces nothing) of one layer and hook,
// since an fp16 bucket moves half the bytes its size says and PowerSGD far fewer. The figure,
// fit.json, buckets.csv and the macros all take their buckets from here.
struct BucketPool {
    QString layer, hook;
    std::vector<analysis::BucketSample> samples; // fitted and drawn
    std::optional<analysis::AlphaBetaFit> fit;   // its latencyFloor from the layer and hook's
                                                 // world-size-1 buckets, which are not drawn
};

// Whether a cell's buckets go into a pool: a complete DDP cell of more than one rank whose hook
// sends its buckets.
bool bucketsCommunicated(const store::CellRow& c);

struct ReportData {
    std::vector<store::CellRow> cells;     // every cell
    QMap<QString, BucketPool> bucketPools; // bucketPoolName -> its buckets and their fit
    // Every complete DDP cell's own buckets, by id (a pool takes those of bucketsCommunicated).
    QMap<QString, std::vector<analysis::BucketSample>> bucketsByCell;
    QMap<QString, std::vector<store::RankFiguresRow>> ranksByCell; // complete cells, by id
    QMap<QString, std::vector<store::StoredSweep>> sweepsByCell;   // complete sweep cells, by id
    QMap<QString, store::StoredPrediction> predictionsByCell;      // complete DDP cells, by id
    // `commprof recommend`'s groups, from the store (store/study_cells.h), when the complete DDP
    // cells vary their bucket cap; none otherwise.
    std::optional<analysis::Recommendations> tuning;
};

ReportData loadReportData(store::Database& db, const QString& runDir);

// Per bucket pool: alpha, beta, R^2, residuals and the latency floor of world-size-1 cells.
QJsonObject fitsJson(const ReportData& data);
// Every pooled bucket (bucketsCommunicated) with its algorithmic and bus bandwidth and its hook.
QString bucketsCsv(store::Database& db, const ReportData& data);

// recommend.csv: a row per group and candidate cap, predicted beside measured; a group that
// predicts nothing is one row with its reason.
QString recommendCsv(const analysis::Recommendations& r);

// LaTeX \newcommand lines for the headline figures, from complete cells only.
QString macrosTex(const ReportData& data);

// A line per complete cell that has no reasons to show: for a sweep, its all_reduce peak and
// fit; for a DDP cell, the all-reduce per step its sweep predicted against the measured.
QMap<QString, QString> cellNotes(const ReportData& data);

// Every recorded point of complete sweep cells, one row per cell, kind and size.
QString sweepCsv(const ReportData& data);

} // namespace commprof::report
