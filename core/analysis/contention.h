// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// How much of a collective's time the backward loses beside it, read from the job's own trace.
// Each gradient's compute (the time from the gradient before it to its own) is the same work
// in every step; what changes between steps is how much of it ran while a bucket's collective
// was in flight. Within each gradient (rank, position in ready order), a step that had more of a
// collective beside it and took longer says the compute lost that much: the slope, pooled over
// every gradient with the gradient's own mean removed (a fixed-effects least squares), is the
// share of a collective's time lost, with its standard error from the residuals. Where the steps
// do not vary their overlap enough, the estimate's interval is wide, and the what-if carries it
// whole rather than guessing.

#include "trace/ddp_steps.h"

#include <QString>

#include <vector>

namespace commprof::analysis {

// The 90 % interval's half-width in standard errors (two-sided normal).
inline constexpr double kZ90 = 1.645;

struct ContentionEstimate {
    double share = 0;         // the least-squares slope, clamped to [0, 1]
    double low = 0, high = 1; // its 90 % interval, within [0, 1]
    int gaps = 0;             // gradient gaps with some collective beside them in some step
    int samples = 0;          // gap-steps in the fit
    bool determined = false;  // the samples allow a slope at all
    QString detail;           // what it rests on, for the output
};

ContentionEstimate contentionFromTraces(const std::vector<const trace::DdpRankSteps*>& traces);

} // namespace commprof::analysis
