// SPDX-License-Identifier: GPL-3.0-or-later
#include "summary_json.h"

#include "json_null.h"

namespace commprof::trace {

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
        {"overlap_efficiency", numberOrNull(m.overlapEfficiency)},
        {"comm_overhead_fraction", numberOrNull(m.commOverheadFraction)},
        {"collectives", qint64(m.collectives)},
        {"comm_bytes", numberOrNull(m.commBytes)},
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
        {"comp_comm_overlap_pctg", numberOrNull(h.compCommOverlapPctg)},
        {"idle_time_us", numberOrNull(h.idleTimeUs)},
        {"compute_time_us", numberOrNull(h.computeTimeUs)},
        {"non_compute_time_us", numberOrNull(h.nonComputeTimeUs)},
        {"kernel_time_us", numberOrNull(h.kernelTimeUs)},
    };
}

QJsonObject toJson(const CollectiveRecord& r) {
    return QJsonObject{
        {"kind", QString::fromStdString(r.kind)},
        {"name", QString::fromStdString(r.written)},
        {"on_device", r.onDevice},
        {"start_us", r.startUs},
        {"duration_us", r.durationUs},
        {"dtype", textOrNull(r.dtype)},
        {"in_nelems", numberOrNull(r.inNelems)},
        {"out_nelems", numberOrNull(r.outNelems)},
        {"group_size", numberOrNull(r.groupSize)},
        {"seq", numberOrNull(r.seq)},
        {"process_group", textOrNull(r.processGroup)},
        {"process_group_desc", textOrNull(r.processGroupDesc)},
        {"bytes", numberOrNull(r.bytes)},
        {"algbw_gbps", numberOrNull(r.algbwGBps)},
        {"busbw_gbps", numberOrNull(r.busbwGBps)},
    };
}

QJsonObject toJson(const KindSummary& k) {
    return QJsonObject{
        {"kind", QString::fromStdString(k.kind)},
        {"count", qint64(k.count)},
        {"sized", qint64(k.sized)},
        {"total_bytes", k.sized ? QJsonValue(k.totalBytes) : QJsonValue(QJsonValue::Null)},
        {"median_algbw_gbps", numberOrNull(k.medianAlgbwGBps)},
        {"median_busbw_gbps", numberOrNull(k.medianBusbwGBps)},
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
        {"rank", numberOrNull(d.rank)},
        {"world_size", numberOrNull(d.worldSize)},
        {"backend", textOrNull(d.backend)},
        {"nccl_version", textOrNull(d.ncclVersion)},
    };
}

} // namespace commprof::trace
