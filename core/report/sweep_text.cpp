// SPDX-License-Identifier: GPL-3.0-or-later
#include "sweep_text.h"

#include "results/json_kind.h"
#include "store/sweep_rows.h"
#include "trace/json_null.h"

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

QString ms(double us) {
    return QString::number(us / 1000.0, 'f', 3);
}

} // namespace

QJsonObject toJson(const analysis::SweepSeries& s, const analysis::LinearFit& fit) {
    const auto pointJson = [](const analysis::SweepPoint& p) {
        QJsonObject point{
            {"bytes", p.bytes},          {"slowest_us", p.slowestUs},
            {"typical_us", p.typicalUs}, {"slowest_rank", p.slowestRank},
            {"algbw_GBps", p.algbwGBps}, {"busbw_GBps", trace::numberOrNull(p.busbwGBps)}};
        if (!p.us.empty()) {
            QJsonObject perRank;
            for (const auto& [rank, us] : p.us) {
                perRank[QString::number(rank)] = us;
            }
            point["us_by_rank"] = perRank;
        }
        return point;
    };
    QJsonObject o{{"layer", s.layer},
                  {"kind", s.kind},
                  {"world_size", s.worldSize},
                  {"points", results::jsonArray(s.points, pointJson)},
                  {"fit", toJson(fit)}};
    if (!s.unsupported.isEmpty()) {
        o["unsupported"] = s.unsupported;
    }
    return o;
}

QJsonObject toJson(const analysis::DdpPrediction& d) {
    const auto bucket = [](const analysis::BucketPrediction& b) {
        return QJsonObject{{"index", b.index},
                           {"bytes", b.bytes},
                           {"sweep_us", b.sweepUs},
                           {"cpu_share", b.cpuShare},
                           {"predicted_us", b.predictedUs},
                           {"fit_us", trace::numberOrNull(b.fitUs)},
                           {"measured_us", b.measuredUs},
                           {"wait_us", b.waitUs},
                           {"queued_us", b.queuedUs},
                           {"samples", b.samples},
                           {"fraction_of_sweep_bandwidth", b.sweepFraction()}};
    };
    return QJsonObject{
        {"steps", d.steps},
        {"host_cpus", d.hostCpus},
        {"sweep_ms_per_step", d.sweepUsPerStep / 1000.0},
        {"predicted_ms_per_step", d.predictedUsPerStep / 1000.0},
        {"fit_ms_per_step", d.fitUsPerStep ? QJsonValue(*d.fitUsPerStep / 1000.0) : QJsonValue()},
        {"measured_ms_per_step", d.measuredUsPerStep / 1000.0},
        {"measured_min_ms", d.measuredMinUs / 1000.0},
        {"measured_max_ms", d.measuredMaxUs / 1000.0},
        {"within_range", d.withinRange()},
        {"off_by", d.offBy()},
        {"wait_ms_per_step", d.waitUsPerStep / 1000.0},
        {"queued_ms_per_step", d.queuedUsPerStep / 1000.0},
        {"backend_ms_per_step", d.backendUsPerStep / 1000.0},
        {"buckets", results::jsonArray(d.buckets, bucket)}};
}

void addSweepFigures(store::Database& db, const QString& cellKey, bool sweep, QJsonObject& cell) {
    if (sweep) {
        cell["sweep"] = results::jsonArray(store::sweeps(db, cellKey),
                                           [](const auto& s) { return toJson(s.series, s.fit); });
        return;
    }
    const std::optional<store::StoredPrediction> p = store::prediction(db, cellKey);
    cell["prediction"] = p && p->prediction ? QJsonValue(toJson(*p->prediction)) : QJsonValue();
    cell["prediction_note"] = p ? p->note : QString("not predicted: the cell is not complete");
    cell["sweep_cell"] = p ? trace::textOrNull(p->sweepCell) : QJsonValue();
}

QString spreadVerdict(const analysis::DdpPrediction& d) {
    const double off = d.offBy() * 100.0;
    if (!d.withinRange() || d.measuredUsPerStep <= 0) {
        return QString("off by %1 %, outside every measured step").arg(off, 0, 'f', 1);
    }
    // The range as percentages of the median step, as the error is.
    const double lo = (d.measuredMinUs / d.measuredUsPerStep - 1.0) * 100.0;
    const double hi = (d.measuredMaxUs / d.measuredUsPerStep - 1.0) * 100.0;
    return QString("off by %1 %; the steps themselves spread %2 %..+%3 % about their median, so "
                   "the measurement cannot judge the prediction")
        .arg(off, 0, 'f', 1)
        .arg(lo, 0, 'f', 0)
        .arg(hi, 0, 'f', 0);
}

QString describe(const analysis::DdpPrediction& d) {
    QString out =
        QString("DDP all-reduce per step over %1 traced step(s): predicted %2 ms from the "
                "sweep's typical times and the CPU share each bucket had, measured %3 ms (the "
                "collective's own time: the span of the rank that arrived last), range %4..%5 "
                "ms: %6\n")
            .arg(d.steps)
            .arg(ms(d.predictedUsPerStep), ms(d.measuredUsPerStep), ms(d.measuredMinUs),
                 ms(d.measuredMaxUs), spreadVerdict(d));
    out += d.hostCpus > 0
               ? QString("  the sweep alone took %1 ms; the buckets shared %2 core(s) with the "
                         "ranks' compute (processor sharing: cores / runnable threads)\n")
                     .arg(ms(d.sweepUsPerStep))
                     .arg(d.hostCpus)
               : QString("  the host's CPU count is unknown: no sharing of the cores is "
                         "predicted\n");
    if (d.fitUsPerStep) {
        out += QString("  the fit's line (the sweep's fastest repetitions) gives %1 ms: the best "
                       "case\n")
                   .arg(ms(*d.fitUsPerStep));
    }
    out += QString("  besides: %1 ms waiting for the last rank to arrive, %2 ms queued behind "
                   "earlier buckets (the hook's launch to the backend span's start); each "
                   "rank's backend spans sum to %3 ms\n")
               .arg(ms(d.waitUsPerStep), ms(d.queuedUsPerStep), ms(d.backendUsPerStep));
    for (const analysis::BucketPrediction& b : d.buckets) {
        out += QString("  bucket %1, %2 B: sweep %3 us at a CPU share of %4 %: predicted %5 "
                       "us, measured %6 us, waited %7 us, queued %8 us: DDP reached %9 % of the "
                       "sweep's bandwidth at this size\n")
                   .arg(b.index)
                   .arg(b.bytes, 0, 'f', 0)
                   .arg(b.sweepUs, 0, 'f', 1)
                   .arg(b.cpuShare * 100.0, 0, 'f', 0)
                   .arg(b.predictedUs, 0, 'f', 1)
                   .arg(b.measuredUs, 0, 'f', 1)
                   .arg(b.waitUs, 0, 'f', 1)
                   .arg(b.queuedUs, 0, 'f', 1)
                   .arg(b.sweepFraction() * 100.0, 0, 'f', 1);
    }
    return out;
}

} // namespace commprof::report
