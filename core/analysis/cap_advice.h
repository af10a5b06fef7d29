// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What a user of `commprof recommend` can act on: per group, the cap it runs at now, the cap to
// set, and the step that saves with its uncertainty; or why nothing is recommended.
//
//   saving = step at the current cap - step at the fastest cap (recommendation.h's rule),
//            both measured where both caps were run, else both predicted;
//   uncertainty = sqrt(u_current^2 + u_fastest^2 [+ (m * predicted_current)^2
//                                                 + (m * predicted_fastest)^2]),
//
// where u is a measured cap's spread: its standard error across repeats where it has them
// (repeats run at different times, so they hold the machine's drift), else the larger of its
// standard error across its cell's iterations and the study's drift between runs (runDrift) times
// its step; 0 for a cap not run. Without repeats and without a measured drift, u is the
// iterations' standard error alone and the advice says the drift between runs is not in it.
// The bracketed model terms count only for a saving that is predicted: m is the group's held-out
// MAPE (10 % where its errors are not all held out, as the fastest cap's rule takes). A saving
// no larger than its uncertainty is no recommendation: the caps differ by less than the noise.
// `hook: local` sends nothing, so no cap changes what it costs: nothing is recommended for it.

#include "analysis/cap_group.h"

#include <QString>

#include <optional>
#include <vector>

namespace commprof::analysis {

// PyTorch DDP's bucket_cap_mb when none is given.
inline constexpr double kDdpDefaultCapMb = 25.0;

// The standard error of a cap's measured step: the sample standard deviation of its repeats'
// medians over the square root of their count where there are two or more repeats, else that
// of its one cell's recorded iterations (rank 0's step_ms); none from fewer than two values.
struct StepError {
    std::optional<double> standardErrorMs;
    QString from; // repeats | iterations
};
StepError stepStandardErrorMs(const std::vector<double>& repeatMediansMs,
                              const std::vector<double>& iterationStepsMs);

// The drift of a cell's step between runs, from a study's own cells: caps of one group whose
// predicted layouts are the same (equal buckets, equal predicted steps: the cap falls where it
// splits no tensor differently) run the same work, so their measured steps differ only by when
// they ran. The pooled relative standard deviation, sqrt(sum((x - mean)/mean)^2 / sum(n - 1))
// over every such set of two or more caps in every group; none without one.
RunDrift runDrift(const std::vector<CapGroup>& groups);

// The advice for `g` (predicted, candidates filled) against `currentCapMb`, which `from` names
// (named | matrix | measured | ddp_default). A current cap that is not a candidate gets a reason.
CapAdvice advise(const CapGroup& g, double currentCapMb, const QString& from);

// The current cap of `g` by the order of CurrentCap (recommendation.h), and where it is from.
std::pair<double, QString> currentCapOf(const CapGroup& g, const CurrentCap& current);

// The group's advice and recommendedCapMb, against `currentCapMb`: what the panel's choice of the
// current cap re-judges without reading anything again.
void applyAdvice(CapGroup& g, double currentCapMb, const QString& from);

} // namespace commprof::analysis
