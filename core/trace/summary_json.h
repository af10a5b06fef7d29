// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The JSON shapes of `commprof trace summarize` and `commprof trace collectives`
// (docs/cli.md). Ratios that are undefined are JSON null, never NaN.

#include "collectives.h"
#include "hta_figures.h"
#include "step_metrics.h"

#include <QJsonArray>
#include <QJsonObject>

#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

namespace commprof::trace {

// Each record's fields under their JSON names, in one place for the writers here and the
// reduction's writer and reader (reduction_json.cpp), which must agree on them.
inline constexpr auto kStepFields =
    std::tuple{std::pair{"step", &StepMetrics::step},
               std::pair{"start_us", &StepMetrics::startUs},
               std::pair{"end_us", &StepMetrics::endUs},
               std::pair{"step_us", &StepMetrics::stepUs},
               std::pair{"compute_us", &StepMetrics::computeUs},
               std::pair{"comm_us", &StepMetrics::commUs},
               std::pair{"bookkeeping_us", &StepMetrics::bookkeepingUs},
               std::pair{"memory_us", &StepMetrics::memoryUs},
               std::pair{"overlap_us", &StepMetrics::overlapUs},
               std::pair{"exposed_comm_us", &StepMetrics::exposedCommUs},
               std::pair{"overlap_efficiency", &StepMetrics::overlapEfficiency},
               std::pair{"comm_overhead_fraction", &StepMetrics::commOverheadFraction},
               std::pair{"collectives", &StepMetrics::collectives},
               std::pair{"comm_bytes", &StepMetrics::commBytes}};
inline constexpr auto kHtaFields =
    std::tuple{std::pair{"comp_comm_overlap_pctg", &HtaFigures::compCommOverlapPctg},
               std::pair{"idle_time_us", &HtaFigures::idleTimeUs},
               std::pair{"compute_time_us", &HtaFigures::computeTimeUs},
               std::pair{"non_compute_time_us", &HtaFigures::nonComputeTimeUs},
               std::pair{"kernel_time_us", &HtaFigures::kernelTimeUs}};
inline constexpr auto kKindFields =
    std::tuple{std::pair{"kind", &KindSummary::kind},
               std::pair{"count", &KindSummary::count},
               std::pair{"sized", &KindSummary::sized},
               std::pair{"total_bytes", &KindSummary::totalBytes},
               std::pair{"median_busbw_gbps", &KindSummary::medianBusbwGBps},
               std::pair{"median_algbw_gbps", &KindSummary::medianAlgbwGBps}};

// Calls f(name, member) for each of `fields` of `m`, in their order.
template <typename M, typename Fields, typename F>
void forEachField(M& m, const Fields& fields, F&& f) {
    std::apply([&](const auto&... field) { (f(field.first, m.*field.second), ...); }, fields);
}

// The record's `fields` as a JSON object: integers and texts as they are, every other figure (a
// double or an optional one) as `number` writes it.
template <typename M, typename Fields, typename Number>
QJsonObject fieldsJson(const M& m, const Fields& fields, Number number) {
    QJsonObject out;
    forEachField(m, fields, [&](const char* key, const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_integral_v<T>) {
            out.insert(key, qint64(v));
        } else if constexpr (std::is_same_v<T, std::string>) {
            out.insert(key, QString::fromStdString(v));
        } else {
            out.insert(key, number(v));
        }
    });
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
