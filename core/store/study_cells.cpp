// SPDX-License-Identifier: GPL-3.0-or-later
#include "study_cells.h"

#include "store/queries.h"
#include "store/sweep_rows.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace commprof::store {
namespace {

results::CellRecord cellRecord(Database& db, const QString& key) {
    Statement s = db.prepare("SELECT id, kind, status, model, layer, world_size, bucket_cap_mb, "
                             "first_bucket_mb, hook, link, config FROM cell_records "
                             "WHERE cell_key = ?");
    s.bind(key);
    results::CellRecord c;
    if (!s.step()) {
        return c; // a cell the store could not take: never complete, so never grouped
    }
    int i = 0;
    c.id = s.column(i++).toString();
    c.kind = s.column(i++).toString();
    c.status = s.column(i++).toString();
    c.model = s.column(i++).toString();
    c.layer = s.column(i++).toString();
    c.worldSize = s.column(i++).toInt();
    c.config.bucketCapMb = s.column(i++).toDouble();
    c.config.firstBucketMb = s.column(i++).toDouble();
    c.config.hook = s.column(i++).toString();
    c.config.link = s.column(i++).toString();
    c.config.all = QJsonDocument::fromJson(s.column(i++).toString().toUtf8()).object();
    return c;
}

// The fields of each rank the step model reads (analysis/ready_times.h).
QMap<int, results::RankRecord> rankRecords(Database& db, const QString& key) {
    QMap<int, results::RankRecord> ranks;
    Statement r = db.prepare("SELECT rank, record_from_iteration, powersgd_rank FROM ranks "
                             "WHERE cell_key = ? ORDER BY rank");
    r.bind(key);
    while (r.step()) {
        results::RankRecord& rank = ranks[r.column(0).toInt()];
        rank.recordFromIteration = r.column(1).toInt();
        rank.powersgdRank = r.column(2).toInt();
    }
    Statement p = db.prepare("SELECT rank, name, shape, bytes FROM parameters WHERE cell_key = ? "
                             "ORDER BY rank, idx");
    p.bind(key);
    while (p.step()) {
        results::ParameterRecord param;
        param.name = p.column(1).toString().toStdString();
        for (const QJsonValue d :
             QJsonDocument::fromJson(p.column(2).toString().toUtf8()).array()) {
            param.shape.push_back(d.toDouble());
        }
        param.bytes = p.column(3).toDouble();
        ranks[p.column(0).toInt()].parameters.push_back(std::move(param));
    }
    Statement it = db.prepare("SELECT rank, iter, forward_ms, backward_ms, optimizer_ms, step_ms "
                              "FROM iterations WHERE cell_key = ? ORDER BY rank, iter");
    it.bind(key);
    while (it.step()) {
        results::IterationRecord i;
        i.iter = it.column(1).toInt();
        i.forwardMs = it.column(2).toDouble();
        i.backwardMs = it.column(3).toDouble();
        i.optimizerMs = it.column(4).toDouble();
        i.stepMs = it.column(5).toDouble();
        ranks[it.column(0).toInt()].iterations.push_back(i);
    }
    for (const BucketRow& b : buckets(db, key)) {
        results::BucketRecord rec;
        rec.iter = b.iter;
        rec.index = b.index;
        rec.bytes = b.bytes;
        rec.nparams = b.nparams;
        rec.startNs = b.startNs;
        rec.endNs = b.endNs;
        ranks[b.rank].buckets.push_back(rec);
    }
    return ranks;
}

// A sweep's all_reduce points as ingest merged them (store/sweep_rows.h).
std::vector<analysis::SweepPoint> allReducePoints(Database& db, const QString& key) {
    for (StoredSweep& s : sweeps(db, key)) {
        if (s.series.kind == "all_reduce") {
            return std::move(s.series.points);
        }
    }
    return {};
}

} // namespace

std::vector<analysis::StudyCell> studyCells(Database& db, const QString& runDir) {
    return studyCells(db, cells(db, runDir));
}

std::vector<analysis::StudyCell> studyCells(Database& db, const std::vector<CellRow>& rows) {
    std::vector<analysis::StudyCell> out;
    for (const CellRow& row : rows) {
        analysis::StudyCell c;
        c.id = row.id;
        c.status = row.status;
        c.reasons = row.reasons;
        c.sweep = row.isSweep();
        c.record = cellRecord(db, row.key);
        if (row.complete() && c.sweep) {
            c.allReduce = allReducePoints(db, row.key);
        } else if (row.complete()) {
            c.ranks = rankRecords(db, row.key);
        }
        out.push_back(std::move(c));
    }
    return out;
}

} // namespace commprof::store
