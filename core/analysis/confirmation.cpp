// SPDX-License-Identifier: GPL-3.0-or-later
#include "confirmation.h"

#include "analysis/whatif.h"
#include "trace/statistics.h"

#include <algorithm>
#include <cmath>

namespace commprof::analysis {
namespace {

bool sameCap(double a, double b) {
    return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(a));
}

const Scenario* find(const WhatIf& w, const Setting& s) {
    const auto it = std::find_if(w.scenarios.begin(), w.scenarios.end(), [&](const Scenario& sc) {
        return sameCap(sc.capMb, s.bucketCapMb) && sc.hook == s.hook && sc.bandwidthX == 1 &&
               sc.worldSize == w.worldSize;
    });
    return it == w.scenarios.end() ? nullptr : &*it;
}

} // namespace

std::optional<PredictedDifference>
predictDifference(const DdpStepGraph& graph, const DdpParams* params, const Setting& recorded,
                  const Setting& candidate, QString* why,
                  const std::optional<HookCalibration>& calibration) {
    WhatIfOptions o;
    o.hookCalibration = calibration;
    o.capsMb = {recorded.bucketCapMb, candidate.bucketCapMb};
    o.hooks = {recorded.hook, candidate.hook};
    o.hooks.removeDuplicates();
    o.recordedCapMb = recorded.bucketCapMb;
    const std::optional<WhatIf> w = whatIf(graph, params, o, why);
    if (!w) {
        return std::nullopt;
    }
    const Scenario* a = find(*w, recorded);
    const Scenario* b = find(*w, candidate);
    if (!a || !b) {
        *why = "the what-if model gave no scenario for the recorded or the candidate setting";
        return std::nullopt;
    }
    PredictedDifference p;
    p.recordedStepMs = a->stepMs;
    p.candidateStepMs = b->stepMs;
    p.differenceMs = b->stepMs - a->stepMs;
    p.lowMs = p.differenceMs - b->uncertaintyMs;
    p.highMs = p.differenceMs + b->uncertaintyMs;
    return p;
}

std::optional<bool> Confirmation::predictionHeld() const {
    return measured && predicted ? std::optional(measured->meanMs >= predicted->lowMs &&
                                                 measured->meanMs <= predicted->highMs)
                                 : std::nullopt;
}

std::optional<double> steadyStepMs(const std::vector<std::vector<double>>& rankStepMs, int skip) {
    double sum = 0;
    int ranks = 0;
    for (const std::vector<double>& steps : rankStepMs) {
        if (int(steps.size()) <= skip) {
            continue;
        }
        sum += *trace::median(std::vector<double>(steps.begin() + skip, steps.end()));
        ++ranks;
    }
    return ranks > 0 ? std::optional(sum / ranks) : std::nullopt;
}

} // namespace commprof::analysis
