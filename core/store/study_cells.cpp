// SPDX-License-Identifier: GPL-3.0-or-later
#include "study_cells.h"

#include "spec/mapped.h"
#include "store/queries.h"
#include "store/sweep_rows.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace commprof::store {
namespace {

// What `recommend` reads of a cell, each query prepared once for all the run's cells.
class StudyQueries {
public:
    explicit StudyQueries(Database& db)
        : record_(db.prepare("SELECT id, kind, status, model, layer, world_size, bucket_cap_mb, "
                             "first_bucket_mb, hook, link, config FROM cell_records "
                             "WHERE cell_key = ?")),
          ranks_(db.prepare("SELECT rank, record_from_iteration, powersgd_rank FROM ranks "
                            "WHERE cell_key = ? ORDER BY rank")),
          params_(db.prepare("SELECT rank, name, shape, bytes FROM parameters "
                             "WHERE cell_key = ? ORDER BY rank, idx")),
          iterations_(db.prepare("SELECT rank, iter, forward_ms, backward_ms, optimizer_ms, "
                                 "step_ms FROM iterations WHERE cell_key = ? ORDER BY rank, iter")),
          buckets_(bucketsQuery(db)), points_(sweepPointsQuery(db)) {}

    results::CellRecord cellRecord(const QString& key) {
        record_.bind(key);
        results::CellRecord c;
        if (record_.step()) { // else a cell the store could not take: never complete, never grouped
            readColumns(record_, 0, c.id, c.kind, c.status, c.model, c.layer, c.worldSize,
                        c.config.bucketCapMb, c.config.firstBucketMb, c.config.hook, c.config.link);
            c.config.all = QJsonDocument::fromJson(record_.column(10).toString().toUtf8()).object();
        }
        record_.reset();
        return c;
    }

    // The fields of each rank the step model reads (analysis/ready_times.h).
    QMap<int, results::RankRecord> rankRecords(const QString& key) {
        QMap<int, results::RankRecord> ranks;
        for (ranks_.bind(key); ranks_.step();) {
            results::RankRecord& rank = ranks[ranks_.column(0).toInt()];
            readColumns(ranks_, 1, rank.recordFromIteration, rank.powersgdRank);
        }
        for (params_.bind(key); params_.step();) {
            ranks[params_.column(0).toInt()].parameters.push_back(
                {params_.column(1).toString().toStdString(),
                 spec::mapped<std::vector<double>>(
                     QJsonDocument::fromJson(params_.column(2).toString().toUtf8()).array(),
                     [](const QJsonValue& d) { return d.toDouble(); }),
                 params_.column(3).toDouble()});
        }
        for (iterations_.bind(key); iterations_.step();) {
            results::IterationRecord i;
            readColumns(iterations_, 1, i.iter, i.forwardMs, i.backwardMs, i.optimizerMs, i.stepMs);
            ranks[iterations_.column(0).toInt()].iterations.push_back(i);
        }
        ranks_.reset();
        params_.reset();
        iterations_.reset();
        for (const BucketRow& b : buckets(buckets_, key)) {
            ranks[b.rank].buckets.push_back(
                {b.iter, b.index, b.bytes, std::nullopt, b.nparams, b.startNs, b.endNs});
        }
        return ranks;
    }

    // A sweep's all_reduce points as ingest merged them (store/sweep_rows.h).
    std::vector<analysis::SweepPoint> allReducePoints(const QString& key) {
        return sweepPoints(points_, key, "all_reduce");
    }

private:
    Statement record_, ranks_, params_, iterations_, buckets_, points_;
};

} // namespace

std::vector<analysis::StudyCell> studyCells(Database& db, const QString& runDir) {
    return studyCells(db, cells(db, runDir));
}

std::vector<analysis::StudyCell> studyCells(Database& db, const std::vector<CellRow>& rows) {
    std::vector<analysis::StudyCell> out;
    StudyQueries q(db);
    for (const CellRow& row : rows) {
        analysis::StudyCell c;
        c.id = row.id;
        c.status = row.status;
        c.reasons = row.reasons;
        c.sweep = row.isSweep();
        c.record = q.cellRecord(row.key);
        if (row.complete() && c.sweep) {
            c.allReduce = q.allReducePoints(row.key);
        } else if (row.complete()) {
            c.ranks = q.rankRecords(row.key);
        }
        out.push_back(std::move(c));
    }
    return out;
}

} // namespace commprof::store
