// SPDX-License-Identifier: GPL-3.0-or-later
#include "summary_json.h"

#include "json_null.h"
#include "spec/mapped.h"

namespace commprof::trace {
namespace {

// `trace summarize` writes a figure that is absent as null.
template <typename M> QJsonObject written(const M& m, const std::vector<spec::Field<M>>& fields) {
    return fieldsJson(m, fields, [](std::optional<double> v) { return numberOrNull(v); });
}

} // namespace

QJsonObject toJson(const StepMetrics& m) {
    return written(m, stepFields());
}

QJsonObject toJson(const TraceSummary& s) {
    const auto steps =
        spec::mapped<QJsonArray>(s.steps, [](const StepMetrics& m) { return toJson(m); });
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
    return written(h, htaFields());
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
    return written(k, kindFields());
}

QJsonArray toJson(const std::vector<KindSummary>& kinds) {
    return spec::mapped<QJsonArray>(kinds, [](const KindSummary& k) { return toJson(k); });
}

QJsonArray toJson(const std::vector<std::string>& strings) {
    return spec::mapped<QJsonArray>(strings, QString::fromStdString);
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
