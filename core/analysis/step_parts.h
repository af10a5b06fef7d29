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
std::optional<StepParts> recordedParts(const DdpStepGraph& graph);
StepParts predictedParts(const Scenario& s);

} // namespace commprof::analysis
