// SPDX-License-Identifier: GPL-3.0-or-later
#include "step_parts.h"

#include "spec/mapped.h"

#include <algorithm>

namespace commprof::analysis {
namespace {

StepParts partsOf(const IterationParts& p) {
    StepParts s;
    s.computeMs = p.computeUs / 1e3;
    s.exposedCommMs = p.exposedCommUs / 1e3;
    s.stragglerWaitMs = p.stragglerWaitUs / 1e3;
    s.optimizerMs = p.optimizerUs / 1e3;
    return s;
}

} // namespace

std::optional<StepParts> recordedParts(const DdpStepGraph& graph) {
    if (graph.iterations.empty()) {
        return std::nullopt;
    }
    auto byLength = spec::mapped<std::vector<const IterationParts*>>(
        graph.iterations, [](const IterationParts& p) { return &p; });
    std::sort(
        byLength.begin(), byLength.end(),
        [](const IterationParts* a, const IterationParts* b) { return a->stepUs < b->stepUs; });
    const std::size_t n = byLength.size();
    if (n % 2 == 1) {
        return partsOf(*byLength[n / 2]);
    }
    const StepParts a = partsOf(*byLength[n / 2 - 1]);
    const StepParts b = partsOf(*byLength[n / 2]);
    StepParts m;
    m.computeMs = (a.computeMs + b.computeMs) / 2;
    m.exposedCommMs = (a.exposedCommMs + b.exposedCommMs) / 2;
    m.stragglerWaitMs = (a.stragglerWaitMs + b.stragglerWaitMs) / 2;
    m.optimizerMs = (a.optimizerMs + b.optimizerMs) / 2;
    return m;
}

StepParts predictedParts(const Scenario& sc) {
    StepParts s;
    s.computeMs = sc.computeMs;
    s.exposedCommMs = sc.exposedMs;
    s.optimizerMs = sc.optimizerMs;
    s.uncertaintyMs = sc.uncertaintyMs;
    return s;
}

} // namespace commprof::analysis
