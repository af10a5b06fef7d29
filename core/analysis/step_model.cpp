// SPDX-License-Identifier: GPL-3.0-or-later
#include "step_model.h"

#include <array>

namespace commprof::analysis {

const BackendConcurrency& collectiveConcurrency(const QString& backend) {
    static const std::array<BackendConcurrency, 2> kRows{{
        {"gloo",
         "gloo can run two collectives at once (ProcessGroupGloo's two worker threads), but they "
         "share one link: each is priced at its share of the link's busy time, so one at a time "
         "spends that time as the job did"},
        {"nccl", "NCCL runs a process group's collectives in order on one stream"},
    }};
    return backend == "gloo" ? kRows[0] : kRows[1];
}

StepPrediction predictStep(const StepProfile& profile, const BucketRule& rule,
                           const HookModel& hook, const CollectiveCost& cost) {
    StepPrediction out;
    out.schedule = simulateSchedule(profile.params, rule, hook, cost, profile.computeEndUs);
    out.exposedUs = out.schedule.exposedUs();
    out.stepUs = profile.forwardUs + out.schedule.computeEndUs + out.exposedUs +
                 profile.finalizeUs + profile.optimizerUs;
    return out;
}

StepProfile stretchedTo(const StepProfile& profile, double computeEndUs) {
    StepProfile out = profile;
    const double stretch = profile.computeEndUs > 0 ? computeEndUs / profile.computeEndUs : 1.0;
    for (ReadyParam& q : out.params) {
        q.readyUs *= stretch;
    }
    out.computeEndUs = computeEndUs;
    return out;
}

double calibratedScale(const StepProfile& profile, const BucketRule& rule, const HookModel& hook,
                       CollectiveCost cost) {
    const auto exposedAt = [&](double scale) {
        cost.scale = scale;
        return simulateSchedule(profile.params, rule, hook, cost, profile.computeEndUs).exposedUs();
    };
    constexpr double kMostScale = 1e5;
    if (exposedAt(kMostScale) <= 0) {
        return 1.0;
    }
    const double target = std::max(0.0, profile.exposedUs);
    double lo = 0, hi = 1;
    while (exposedAt(hi) <= target && hi < kMostScale) {
        hi *= 2;
    }
    for (int i = 0; i < 60 && hi - lo > 1e-6 * hi; ++i) {
        const double mid = (lo + hi) / 2;
        (exposedAt(mid) <= target ? lo : hi) = mid;
    }
    return (lo + hi) / 2;
}

} // namespace commprof::analysis
