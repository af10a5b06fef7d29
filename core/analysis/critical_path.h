// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Each step's critical path as the timeline draws it over the tracks: on the rank whose
// gradients were ready last for the step's last bucket (every other rank waited for it, so its
// path is the step's), its compute up to its last gradient, then what the backward waited for
// after it (the last bucket's collective and DDP's copies back), then the optimizer. With one
// rank's trace, or buckets the traces do not time, that rank's own path.

#include "analysis/ddp_step_graph.h"

#include <QString>
#include <QStringList>

#include <vector>

namespace commprof::analysis {

struct CriticalStep {
    int step = 0;
    int rank = 0; // the rank (its number) whose path it is
    // On that rank's own trace clock.
    double startUs = 0, computeEndUs = 0, backwardEndUs = 0, endUs = 0;
    // "rank 1 ready last at bucket 4 of 4 (gradient 14 of 14 in ready order (net.0.weight))".
    QString culprit;
    // Only this rank's trace has the step (a cut trace's later steps, in a job of several
    // ranks): its path, not a rank found last.
    bool alone = false;
};

// `parameterNames` (registration order) names the gradients where it has one per gradient.
std::vector<CriticalStep> criticalPath(const DdpStepGraph& graph,
                                       const QStringList& parameterNames = {});

} // namespace commprof::analysis
