// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The JSON shapes of `commprof trace summarize` and `commprof trace collectives`
// (docs/cli.md). Ratios that are undefined are JSON null, never NaN.

#include "collectives.h"
#include "hta_figures.h"
#include "step_metrics.h"

#include "spec/field_table.h"
#include "spec/mapped.h"

#include <QJsonArray>
#include <QJsonObject>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

namespace commprof::trace {

// Each record's fields under their JSON names, in spec/field_table.h's rows (the rank file's
// mechanism), in one place for the writers here and the reduction's writer and reader
// (reduction_json.cpp), which must agree on them. A reduction is read back as it was written:
// every field there, of its type, with no bounds (a figure may be NaN or infinite there).
template <typename R, typename M> spec::Field<R> traceField(const char* key, M R::*member) {
    constexpr std::int64_t kAny = std::numeric_limits<std::int64_t>::min();
    return {key, "", spec::Need::Required, kAny, spec::kNoLimit, member};
}
inline const std::vector<spec::Field<StepMetrics>>& stepFields() {
    using M = StepMetrics;
    static const std::vector<spec::Field<M>> t = {
        traceField("step", &M::step),
        traceField("start_us", &M::startUs),
        traceField("end_us", &M::endUs),
        traceField("step_us", &M::stepUs),
        traceField("compute_us", &M::computeUs),
        traceField("comm_us", &M::commUs),
        traceField("bookkeeping_us", &M::bookkeepingUs),
        traceField("memory_us", &M::memoryUs),
        traceField("overlap_us", &M::overlapUs),
        traceField("exposed_comm_us", &M::exposedCommUs),
        traceField("overlap_efficiency", &M::overlapEfficiency),
        traceField("comm_overhead_fraction", &M::commOverheadFraction),
        traceField("collectives", &M::collectives),
        traceField("comm_bytes", &M::commBytes),
    };
    return t;
}
inline const std::vector<spec::Field<HtaFigures>>& htaFields() {
    using H = HtaFigures;
    static const std::vector<spec::Field<H>> t = {
        traceField("comp_comm_overlap_pctg", &H::compCommOverlapPctg),
        traceField("idle_time_us", &H::idleTimeUs),
        traceField("compute_time_us", &H::computeTimeUs),
        traceField("non_compute_time_us", &H::nonComputeTimeUs),
        traceField("kernel_time_us", &H::kernelTimeUs),
    };
    return t;
}
inline const std::vector<spec::Field<KindSummary>>& kindFields() {
    using K = KindSummary;
    static const std::vector<spec::Field<K>> t = {
        traceField("kind", &K::kind),
        traceField("count", &K::count),
        traceField("sized", &K::sized),
        traceField("total_bytes", &K::totalBytes),
        traceField("median_busbw_gbps", &K::medianBusbwGBps),
        traceField("median_algbw_gbps", &K::medianAlgbwGBps),
    };
    return t;
}

// The record's `fields` as a JSON object: integers, booleans and texts as they are, every other
// figure (a double or an optional one, or each of an array's) as `number` writes it.
template <typename M, typename Number>
QJsonObject fieldsJson(const M& m, const std::vector<spec::Field<M>>& fields, Number number) {
    const auto value = [&](const auto& v) -> QJsonValue {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, bool>) {
            return v;
        } else if constexpr (std::is_integral_v<T>) {
            return qint64(v);
        } else if constexpr (std::is_same_v<T, std::string>) {
            return QString::fromStdString(v);
        } else if constexpr (std::is_same_v<T, std::optional<std::int64_t>>) {
            return v ? QJsonValue(qint64(*v)) : QJsonValue(QJsonValue::Null);
        } else if constexpr (std::is_same_v<T, std::vector<std::int64_t>> ||
                             std::is_same_v<T, std::vector<double>>) {
            return spec::mapped<QJsonArray>(v, [&](auto e) { return number(double(e)); });
        } else {
            return number(v);
        }
    };
    QJsonObject out;
    for (const spec::Field<M>& f : fields) {
        std::visit([&](auto member) { out.insert(f.key, value(m.*member)); }, f.member);
    }
    return out;
}

QJsonObject toJson(const StepMetrics& m);
QJsonObject toJson(const TraceSummary& s);
// The five HTA figures, under the names HTA prints.
QJsonObject toJson(const HtaFigures& h);
QJsonObject toJson(const CollectiveRecord& r);
QJsonObject toJson(const KindSummary& k);
QJsonValue toJson(const DistributedInfo& d);
QJsonArray toJson(const std::vector<KindSummary>& kinds);
QJsonArray toJson(const std::vector<std::string>& strings);

} // namespace commprof::trace
