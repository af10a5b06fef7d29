// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One step broken into the parts the What if figure stacks, for the recorded step (as the
// traces show it), the replayed one and each predicted scenario (as the step model gives them):
//
//   step = compute + exposed communication + wait for the straggler + optimizer
//
// The model has no straggler: a replayed or predicted step's wait is 0, and the recorded wait
// is in what the replay calls exposed communication.

#include "analysis/ddp_step_graph.h"
#include "analysis/whatif.h"
#include "spec/mapped.h"

#include <algorithm>
#include <optional>

namespace commprof::analysis {

struct StepParts {
    double computeMs = 0, exposedCommMs = 0, stragglerWaitMs = 0, optimizerMs = 0;
    double uncertaintyMs = 0; // an error bar about the step; 0 for the recorded one
    double stepMs() const { return computeMs + exposedCommMs + stragglerWaitMs + optimizerMs; }
};

// The recorded median step's parts: those of the median rank-iteration by step length (with an
// even count, the mean of the middle two), so that they sum to the median step whatif.h
// reports. nullopt when the graph has no iteration.
inline std::optional<StepParts> recordedParts(const DdpStepGraph& graph) {
    if (graph.iterations.empty()) {
        return std::nullopt;
    }
    const auto partsOf = [](const IterationParts* p) {
        return StepParts{.computeMs = p->computeUs / 1e3,
                         .exposedCommMs = p->exposedCommUs / 1e3,
                         .stragglerWaitMs = p->stragglerWaitUs / 1e3,
                         .optimizerMs = p->optimizerUs / 1e3};
    };
    auto byLength = spec::mapped<std::vector<const IterationParts*>>(
        graph.iterations, [](const IterationParts& p) { return &p; });
    std::ranges::sort(byLength, {}, &IterationParts::stepUs);
    const std::size_t n = byLength.size();
    if (n % 2 == 1) {
        return partsOf(byLength[n / 2]);
    }
    const StepParts a = partsOf(byLength[n / 2 - 1]);
    const StepParts b = partsOf(byLength[n / 2]);
    return StepParts{.computeMs = (a.computeMs + b.computeMs) / 2,
                     .exposedCommMs = (a.exposedCommMs + b.exposedCommMs) / 2,
                     .stragglerWaitMs = (a.stragglerWaitMs + b.stragglerWaitMs) / 2,
                     .optimizerMs = (a.optimizerMs + b.optimizerMs) / 2};
}

inline StepParts predictedParts(const Scenario& sc) {
    return {.computeMs = sc.computeMs,
            .exposedCommMs = sc.exposedMs,
            .optimizerMs = sc.optimizerMs,
            .uncertaintyMs = sc.uncertaintyMs};
}

} // namespace commprof::analysis
