// SPDX-License-Identifier: GPL-3.0-or-later
#include "summary_json.h"

#include "json_null.h"

#include <type_traits>

namespace commprof::trace {
namespace {

// A field as `trace summarize` writes it: a number, a text, or null for a figure that is absent.
template <typename T> QJsonValue plain(const T& v) {
    if constexpr (std::is_integral_v<T>) {
        return qint64(v);
    } else if constexpr (std::is_same_v<T, std::string>) {
        return QString::fromStdString(v);
    } else {
        return numberOrNull(std::optional<double>(v));
    }
}

template <typename M, typename Fields> QJsonObject written(const M& m, const Fields& fields) {
    QJsonObject out;
    forEachField(m, fields, [&](const char* key, const auto& v) { out.insert(key, plain(v)); });
    return out;
}

} // namespace

QJsonObject toJson(const StepMetrics& m) {
    return written(m, kStepFields);
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
    return written(h, kHtaFields);
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
    QJsonObject out = written(k, kKindFields);
    if (!k.sized) {
        out.insert("total_bytes", QJsonValue::Null);
    }
    return out;
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
