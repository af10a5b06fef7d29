// SPDX-License-Identifier: GPL-3.0-or-later
#include "job_json.h"

#include "spec/mapped.h"
#include "summary_json.h"

#include <QJsonArray>

#include <algorithm>

namespace commprof::trace {

QJsonObject toJson(const CollectiveInstance& i) {
    const auto arrivals = spec::mapped<QJsonArray>(i.arrivals, [](const auto& a) {
        return QJsonObject{{"rank", a.rank}, {"start_us", a.startUs}};
    });
    return QJsonObject{
        {"process_group", QString::fromStdString(i.processGroup)},
        {"step", i.step ? QJsonValue(*i.step) : QJsonValue(QJsonValue::Null)},
        {"ordinal", qint64(i.ordinal)},
        {"seq", i.seq ? QJsonValue(qint64(*i.seq)) : QJsonValue(QJsonValue::Null)},
        {"kind", QString::fromStdString(i.kind)},
        {"first_rank", i.firstRank},
        {"last_rank", i.lastRank},
        {"skew_us", i.skewUs},
        {"arrivals", arrivals},
    };
}

QJsonObject toJson(const RankLateness& r) {
    return QJsonObject{
        {"rank", r.rank},
        {"last_arrivals", qint64(r.lastArrivals)},
        {"instances", qint64(r.instances)},
        {"median_lateness_us", r.medianLatenessUs},
        {"straggler", r.straggler},
    };
}

QJsonObject toJson(const StepVerdict& v) {
    QJsonObject stepUs;
    for (const auto& [rank, us] : v.stepUs) {
        stepUs.insert(QString::number(rank), us);
    }
    return QJsonObject{
        {"step", v.step},
        {"slowest_rank", v.slowestRank ? QJsonValue(*v.slowestRank) : QJsonValue(QJsonValue::Null)},
        {"collectives", qint64(v.instances)},
        {"wait_us", v.waitUs},
        {"step_us", stepUs},
    };
}

QJsonObject toJson(const JobAnalysis& job, bool withInstances) {
    const auto json = [](const auto& x) { return toJson(x); };
    QJsonArray stragglers;
    for (const auto& r : job.ranks) {
        if (r.straggler) {
            stragglers.append(toJson(r));
        }
    }
    auto skews =
        spec::mapped<std::vector<double>>(job.instances, [](const auto& i) { return i.skewUs; });
    std::sort(skews.begin(), skews.end());
    const QJsonValue medianSkew =
        skews.empty() ? QJsonValue(QJsonValue::Null) : QJsonValue(skews[skews.size() / 2]);
    const QJsonValue maxSkew =
        skews.empty() ? QJsonValue(QJsonValue::Null) : QJsonValue(skews.back());
    QJsonObject out{
        {"skew", QJsonObject{{"instances", qint64(job.instances.size())},
                             {"median_skew_us", medianSkew},
                             {"max_skew_us", maxSkew}}},
        {"lateness", spec::mapped<QJsonArray>(job.ranks, json)},
        {"stragglers", stragglers},
        {"straggler_rule",
         QJsonObject{{"threshold_us", job.thresholdUs},
                     {"median_step_us", job.medianStepUs},
                     {"step_fraction", kStragglerStepFraction},
                     {"last_share", kStragglerLastShare},
                     {"rule", "last at two thirds or more of the matched collectives, with a "
                              "median lateness above threshold_us"}}},
        {"steps", spec::mapped<QJsonArray>(job.steps, json)},
        {"job_warnings", toJson(job.warnings)},
    };
    if (withInstances) {
        out.insert("instances", spec::mapped<QJsonArray>(job.instances, json));
    }
    return out;
}

} // namespace commprof::trace
