// SPDX-License-Identifier: GPL-3.0-or-later
#include "sweep_rows.h"

namespace commprof::store {

void insertSweep(Database& db, const QString& cellKey,
                 const std::vector<analysis::SweepSeries>& series) {
    Statement point = db.prepare("INSERT OR REPLACE INTO sweep_points VALUES (?,?,?,?,?,?,?,?)");
    Statement fitRow =
        db.prepare("INSERT OR REPLACE INTO sweep_fits VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    for (const analysis::SweepSeries& s : series) {
        for (const analysis::SweepPoint& p : s.points) {
            point
                .bindAll({cellKey, s.kind, p.bytes, p.slowestUs, p.typicalUs, p.slowestRank,
                          p.algbwGBps, nullable(p.busbwGBps)})
                .run();
        }
        const analysis::LinearFit f = analysis::fitSeries(s);
        fitRow
            .bindAll({cellKey, s.kind, s.unsupported.isEmpty() ? QVariant() : s.unsupported,
                      f.refused, f.reason, f.method, f.refused ? QVariant() : f.alphaUs,
                      f.refused ? QVariant() : f.betaUsPerByte, f.refused ? QVariant() : f.r2,
                      f.sizes, f.fromBytes, f.toBytes, nullable(f.leftOutFromBytes), f.note})
            .run();
    }
}

std::vector<StoredSweep> sweeps(Database& db, const QString& cellKey) {
    Statement cell = db.prepare("SELECT layer, world_size FROM cells WHERE key = ?");
    cell.bind(cellKey);
    StoredSweep ofCell; // the layer and world size every kind shares
    if (cell.step()) {
        readColumns(cell, 0, ofCell.series.layer, ofCell.series.worldSize);
    }
    Statement fits =
        db.prepare("SELECT kind, unsupported, refused, reason, method, alpha_us, beta_us_per_byte, "
                   "r2, sizes, from_bytes, to_bytes, left_out_from_bytes, note FROM sweep_fits "
                   "WHERE cell_key = ? ORDER BY kind");
    fits.bind(cellKey);
    std::vector<StoredSweep> out = readRows<StoredSweep>(fits, [&ofCell](StoredSweep& s) {
        s = ofCell;
        return std::tie(s.series.kind, s.series.unsupported, s.fit.refused, s.fit.reason,
                        s.fit.method, s.fit.alphaUs, s.fit.betaUsPerByte, s.fit.r2, s.fit.sizes,
                        s.fit.fromBytes, s.fit.toBytes, s.fit.leftOutFromBytes, s.fit.note);
    });
    Statement points = sweepPointsQuery(db);
    for (StoredSweep& s : out) {
        s.series.points = sweepPoints(points, cellKey, s.series.kind);
    }
    return out;
}

Statement sweepPointsQuery(Database& db) {
    return db.prepare("SELECT bytes, time_us, typical_us, slowest_rank, algbw_gbps, busbw_gbps "
                      "FROM sweep_points WHERE cell_key = ? AND kind = ? ORDER BY bytes");
}

std::vector<analysis::SweepPoint> sweepPoints(Statement& query, const QString& cellKey,
                                              const QString& kind) {
    query.bindAll({cellKey, kind});
    std::vector<analysis::SweepPoint> out =
        readRows<analysis::SweepPoint>(query, [](analysis::SweepPoint& p) {
            return std::tie(p.bytes, p.slowestUs, p.typicalUs, p.slowestRank, p.algbwGBps,
                            p.busbwGBps);
        });
    query.reset(); // for the next kind or cell
    return out;
}

void insertPrediction(Database& db, const QString& cellKey, const StoredPrediction& p) {
    const analysis::DdpPrediction d = p.prediction.value_or(analysis::DdpPrediction{});
    const bool has = p.prediction.has_value();
    const auto ms = [&](double us) { return has ? QVariant(us / 1000.0) : QVariant(); };
    db.prepare("INSERT OR REPLACE INTO ddp_predictions VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)")
        .bindAll({cellKey, p.sweepCell, p.note, d.steps, d.hostCpus, ms(d.sweepUsPerStep),
                  ms(d.predictedUsPerStep), d.fitUsPerStep ? ms(*d.fitUsPerStep) : QVariant(),
                  ms(d.measuredUsPerStep), ms(d.measuredMinUs), ms(d.measuredMaxUs),
                  ms(d.waitUsPerStep), ms(d.queuedUsPerStep), ms(d.backendUsPerStep)})
        .run();
    Statement bucket =
        db.prepare("INSERT OR REPLACE INTO bucket_predictions VALUES (?,?,?,?,?,?,?,?,?,?,?)");
    for (const analysis::BucketPrediction& b : d.buckets) {
        bucket
            .bindAll({cellKey, b.index, b.bytes, b.sweepUs, b.cpuShare, b.predictedUs,
                      nullable(b.fitUs), b.measuredUs, b.waitUs, b.queuedUs, b.samples})
            .run();
    }
}

std::optional<StoredPrediction> prediction(Database& db, const QString& cellKey) {
    Statement s = db.prepare("SELECT sweep_cell, note, steps, predicted_ms, fit_ms, measured_ms, "
                             "measured_min_ms, measured_max_ms, wait_ms, queued_ms, backend_ms, "
                             "host_cpus, sweep_ms FROM ddp_predictions WHERE cell_key = ?");
    s.bind(cellKey);
    if (!s.step()) {
        return std::nullopt;
    }
    StoredPrediction p;
    readColumns(s, 0, p.sweepCell, p.note);
    if (s.column(3).isNull()) {
        return p;
    }
    const auto us = [&](int i) { return s.column(i).toDouble() * 1000.0; };
    Statement b = db.prepare(
        "SELECT idx, bytes, predicted_us, fit_us, measured_us, wait_us, queued_us, samples, "
        "sweep_us, cpu_share FROM bucket_predictions WHERE cell_key = ? ORDER BY idx");
    b.bind(cellKey);
    const auto bucket = [](analysis::BucketPrediction& bp) {
        return std::tie(bp.index, bp.bytes, bp.predictedUs, bp.fitUs, bp.measuredUs, bp.waitUs,
                        bp.queuedUs, bp.samples, bp.sweepUs, bp.cpuShare);
    };
    p.prediction = analysis::DdpPrediction{
        .steps = s.column(2).toInt(),
        .hostCpus = s.column(11).toInt(),
        .sweepUsPerStep = us(12),
        .predictedUsPerStep = us(3),
        .fitUsPerStep = s.column(4).isNull() ? std::nullopt : std::optional(us(4)),
        .measuredUsPerStep = us(5),
        .measuredMinUs = us(6),
        .measuredMaxUs = us(7),
        .waitUsPerStep = us(8),
        .queuedUsPerStep = us(9),
        .backendUsPerStep = us(10),
        .buckets = readRows<analysis::BucketPrediction>(b, bucket)};
    return p;
}

} // namespace commprof::store
