// SPDX-License-Identifier: GPL-3.0-or-later
#include "step_parts.h"

#include "spec/mapped.h"

#include <algorithm>

namespace commprof::analysis {
namespace {

StepParts partsOf(const IterationParts& p) {
    return {.computeMs = p.computeUs / 1e3,
            .exposedCommMs = p.exposedCommUs / 1e3,
            .stragglerWaitMs = p.stragglerWaitUs / 1e3,
            .optimizerMs = p.optimizerUs / 1e3};
}

} // namespace

std::optional<StepParts> recordedParts(const DdpStepGraph& graph) {
    if (graph.iterations.empty()) {
        return std::nullopt;
    }
    auto byLength = spec::mapped<std::vector<const IterationParts*>>(
        graph.iterations, [](const IterationParts& p) { return &p; });
    std::ranges::sort(byLength, {}, &IterationParts::stepUs);
    const std::size_t n = byLength.size();
    if (n % 2 == 1) {
        return partsOf(*byLength[n / 2]);
    }
    const StepParts a = partsOf(*byLength[n / 2 - 1]);
    const StepParts b = partsOf(*byLength[n / 2]);
    return StepParts{.computeMs = (a.computeMs + b.computeMs) / 2,
                     .exposedCommMs = (a.exposedCommMs + b.exposedCommMs) / 2,
                     .stragglerWaitMs = (a.stragglerWaitMs + b.stragglerWaitMs) / 2,
                     .optimizerMs = (a.optimizerMs + b.optimizerMs) / 2};
}

StepParts predictedParts(const Scenario& sc) {
    return {.computeMs = sc.computeMs,
            .exposedCommMs = sc.exposedMs,
            .optimizerMs = sc.optimizerMs,
            .uncertaintyMs = sc.uncertaintyMs};
}

} // namespace commprof::analysis
