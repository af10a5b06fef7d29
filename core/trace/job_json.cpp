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
    QJsonArray instances, lateness, stragglers, steps;
    std::vector<double> skews;
    for (const auto& i : job.instances) {
        if (withInstances) {
            instances.append(toJson(i));
        }
        skews.push_back(i.skewUs);
    }
    for (const auto& r : job.ranks) {
        lateness.append(toJson(r));
        if (r.straggler) {
            stragglers.append(toJson(r));
        }
    }
    for (const auto& v : job.steps) {
        steps.append(toJson(v));
    }
    std::sort(skews.begin(), skews.end());
    const QJsonValue medianSkew =
        skews.empty() ? QJsonValue(QJsonValue::Null) : QJsonValue(skews[skews.size() / 2]);
    const QJsonValue maxSkew =
        skews.empty() ? QJsonValue(QJsonValue::Null) : QJsonValue(skews.back());
    QJsonObject out{
        {"skew", QJsonObject{{"instances", qint64(job.instances.size())},
                             {"median_skew_us", medianSkew},
                             {"max_skew_us", maxSkew}}},
        {"instances", instances},
        {"lateness", lateness},
        {"stragglers", stragglers},
        {"straggler_rule",
         QJsonObject{{"threshold_us", job.thresholdUs},
                     {"median_step_us", job.medianStepUs},
                     {"step_fraction", kStragglerStepFraction},
                     {"last_share", kStragglerLastShare},
                     {"rule", "last at two thirds or more of the matched collectives, with a "
                              "median lateness above threshold_us"}}},
        {"steps", steps},
        {"job_warnings", toJson(job.warnings)},
    };
    if (!withInstances) {
        out.remove("instances");
    }
    return out;
}

} // namespace commprof::trace
