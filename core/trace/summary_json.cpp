// SPDX-License-Identifier: GPL-3.0-or-later
#include "summary_json.h"

namespace commprof::trace {
namespace {

QJsonValue orNull(const std::optional<double>& v) {
    return v ? QJsonValue(*v) : QJsonValue(QJsonValue::Null);
}
QJsonValue orNull(const std::optional<std::int64_t>& v) {
    return v ? QJsonValue(qint64(*v)) : QJsonValue(QJsonValue::Null);
}
QJsonValue orNull(const std::string& v) {
    return v.empty() ? QJsonValue(QJsonValue::Null) : QJsonValue(QString::fromStdString(v));
}

} // namespace

QJsonObject toJson(const StepMetrics& m) {
    return QJsonObject{
        {"step", m.step},
        {"start_us", m.startUs},
        {"end_us", m.endUs},
        {"step_us", m.stepUs},
        {"compute_us", m.computeUs},
        {"comm_us", m.commUs},
        {"bookkeeping_us", m.bookkeepingUs},
        {"memory_us", m.memoryUs},
        {"overlap_us", m.overlapUs},
        {"exposed_comm_us", m.exposedCommUs},
        {"overlap_efficiency", orNull(m.overlapEfficiency)},
        {"comm_overhead_fraction", orNull(m.commOverheadFraction)},
        {"collectives", qint64(m.collectives)},
        {"comm_bytes", orNull(m.commBytes)},
    };
}

QJsonObject toJson(const TraceSummary& s) {
    QJsonArray steps;
    for (const auto& m : s.steps) {
        steps.append(toJson(m));
    }
    QJsonObject totals = toJson(s.totals);
    totals.remove("step");
    QJsonObject out{
        {"regime", toString(s.regime)},
        {"steps_marked", s.stepsMarked},
        {"steps", steps},
        {"totals", totals},
        {"warnings", toJson(s.warnings)},
    };
    if (s.window && s.windowFigures) {
        QJsonObject w = toJson(*s.windowFigures);
        w.remove("step");
        out.insert("window", w);
    }
    return out;
}

QJsonObject toJson(const HtaFigures& h) {
    return QJsonObject{
        {"comp_comm_overlap_pctg", orNull(h.compCommOverlapPctg)},
        {"idle_time_us", orNull(h.idleTimeUs)},
        {"compute_time_us", orNull(h.computeTimeUs)},
        {"non_compute_time_us", orNull(h.nonComputeTimeUs)},
        {"kernel_time_us", orNull(h.kernelTimeUs)},
    };
}

QJsonObject toJson(const CollectiveRecord& r) {
    return QJsonObject{
        {"kind", QString::fromStdString(r.kind)},
        {"name", QString::fromStdString(r.written)},
        {"on_device", r.onDevice},
        {"start_us", r.startUs},
        {"duration_us", r.durationUs},
        {"dtype", orNull(r.dtype)},
        {"in_nelems", orNull(r.inNelems)},
        {"out_nelems", orNull(r.outNelems)},
        {"group_size", orNull(r.groupSize)},
        {"seq", orNull(r.seq)},
        {"process_group", orNull(r.processGroup)},
        {"process_group_desc", orNull(r.processGroupDesc)},
        {"bytes", orNull(r.bytes)},
        {"algbw_gbps", orNull(r.algbwGBps)},
        {"busbw_gbps", orNull(r.busbwGBps)},
    };
}

QJsonObject toJson(const KindSummary& k) {
    return QJsonObject{
        {"kind", QString::fromStdString(k.kind)},
        {"count", qint64(k.count)},
        {"sized", qint64(k.sized)},
        {"total_bytes", k.sized ? QJsonValue(k.totalBytes) : QJsonValue(QJsonValue::Null)},
        {"median_algbw_gbps", orNull(k.medianAlgbwGBps)},
        {"median_busbw_gbps", orNull(k.medianBusbwGBps)},
    };
}

QJsonArray toJson(const std::vector<KindSummary>& kinds) {
    QJsonArray out;
    for (const auto& k : kinds) {
        out.append(toJson(k));
    }
    return out;
}

QJsonArray toJson(const std::vector<std::string>& strings) {
    QJsonArray out;
    for (const auto& s : strings) {
        out.append(QString::fromStdString(s));
    }
    return out;
}

QJsonValue toJson(const DistributedInfo& d) {
    if (!d.present) {
        return QJsonValue(QJsonValue::Null);
    }
    return QJsonObject{
        {"rank", orNull(d.rank)},
        {"world_size", orNull(d.worldSize)},
        {"backend", orNull(d.backend)},
        {"nccl_version", orNull(d.ncclVersion)},
    };
}

} // namespace commprof::trace
