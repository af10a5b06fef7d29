// SPDX-License-Identifier: GPL-3.0-or-later
#include "sweep_json.h"

#include "analysis/json_null.h"
#include "store/sweep_rows.h"

#include <QJsonArray>

namespace commprof::report {
namespace {

QJsonObject toJson(const analysis::LinearFit& f) {
    QJsonObject o{{"refused", f.refused},
                  {"method", f.method},
                  {"sizes", f.sizes},
                  {"from_bytes", f.fromBytes},
                  {"to_bytes", f.toBytes}};
    if (f.leftOutFromBytes) {
        o["left_out_from_bytes"] = *f.leftOutFromBytes;
        o["note"] = f.note;
    }
    if (f.refused) {
        o["reason"] = f.reason;
    } else {
        o["alpha_us"] = f.alphaUs;
        o["beta_us_per_byte"] = f.betaUsPerByte;
        o["asymptotic_GBps"] = f.asymptoticGBps();
        o["r_squared"] = f.r2;
    }
    return o;
}

} // namespace

QJsonObject toJson(const analysis::SweepSeries& s, const analysis::LinearFit& fit) {
    QJsonArray points;
    for (const analysis::SweepPoint& p : s.points) {
        QJsonObject point{
            {"bytes", p.bytes},          {"slowest_us", p.slowestUs},
            {"typical_us", p.typicalUs}, {"slowest_rank", p.slowestRank},
            {"algbw_GBps", p.algbwGBps}, {"busbw_GBps", analysis::numberOrNull(p.busbwGBps)}};
        if (!p.us.empty()) {
            QJsonObject perRank;
            for (const auto& [rank, us] : p.us) {
                perRank[QString::number(rank)] = us;
            }
            point["us_by_rank"] = perRank;
        }
        points.append(point);
    }
    QJsonObject o{{"layer", s.layer},
                  {"kind", s.kind},
                  {"world_size", s.worldSize},
                  {"points", points},
                  {"fit", toJson(fit)}};
    if (!s.unsupported.isEmpty()) {
        o["unsupported"] = s.unsupported;
    }
    return o;
}

QJsonObject toJson(const analysis::DdpPrediction& d) {
    QJsonArray buckets;
    for (const analysis::BucketPrediction& b : d.buckets) {
        buckets.append(QJsonObject{{"index", b.index},
                                   {"bytes", b.bytes},
                                   {"sweep_us", b.sweepUs},
                                   {"cpu_share", b.cpuShare},
                                   {"predicted_us", b.predictedUs},
                                   {"fit_us", analysis::numberOrNull(b.fitUs)},
                                   {"measured_us", b.measuredUs},
                                   {"wait_us", b.waitUs},
                                   {"queued_us", b.queuedUs},
                                   {"samples", b.samples},
                                   {"fraction_of_sweep_bandwidth", b.sweepFraction()}});
    }
    return QJsonObject{{"steps", d.steps},
                       {"host_cpus", d.hostCpus},
                       {"sweep_ms_per_step", d.sweepUsPerStep / 1000.0},
                       {"predicted_ms_per_step", d.predictedUsPerStep / 1000.0},
                       {"fit_ms_per_step", d.fitUsPerStep ? QJsonValue(*d.fitUsPerStep / 1000.0)
                                                          : QJsonValue(QJsonValue::Null)},
                       {"measured_ms_per_step", d.measuredUsPerStep / 1000.0},
                       {"measured_min_ms", d.measuredMinUs / 1000.0},
                       {"measured_max_ms", d.measuredMaxUs / 1000.0},
                       {"within_range", d.withinRange()},
                       {"off_by", d.offBy()},
                       {"wait_ms_per_step", d.waitUsPerStep / 1000.0},
                       {"queued_ms_per_step", d.queuedUsPerStep / 1000.0},
                       {"backend_ms_per_step", d.backendUsPerStep / 1000.0},
                       {"buckets", buckets}};
}

void addSweepFigures(store::Database& db, const QString& cellKey, bool sweep, QJsonObject& cell) {
    if (sweep) {
        QJsonArray all;
        for (const store::StoredSweep& s : store::sweeps(db, cellKey)) {
            all.append(toJson(s.series, s.fit));
        }
        cell["sweep"] = all;
        return;
    }
    const std::optional<store::StoredPrediction> p = store::prediction(db, cellKey);
    cell["prediction"] =
        p && p->prediction ? QJsonValue(toJson(*p->prediction)) : QJsonValue(QJsonValue::Null);
    cell["prediction_note"] = p ? p->note : QString("not predicted: the cell is not complete");
    cell["sweep_cell"] =
        p && !p->sweepCell.isEmpty() ? QJsonValue(p->sweepCell) : QJsonValue(QJsonValue::Null);
}

} // namespace commprof::report
