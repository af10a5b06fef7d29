// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// `commprof confirm`: what a candidate setting changed a job's step by, from runs alternating
// A B A B ... Runs drift (the same job here took 192, 220 and 336 ms a step in three runs a
// minute apart), so each B is compared with the A beside it: the difference of each pair, then
// the mean of the pairs' differences and its Student-t interval. Values in, values out.

#include <optional>
#include <vector>

namespace commprof::analysis {

struct PairedDifference {
    int pairs = 0;
    double meanMs = 0; // mean of b[i] - a[i]
    double lowMs = 0, highMs = 0;
    double level = 0.9;
    double sdMs = 0; // the pairs' differences' standard deviation
};

// The two-sided Student-t quantile for `level` (0.8, 0.9, 0.95 or 0.99) at `df` degrees of freedom
// (1 and up); nullopt for another level or df < 1.
std::optional<double> studentT(double level, int df);

// nullopt when a and b differ in size or hold fewer than two pairs, or a value is not finite.
std::optional<PairedDifference> pairedDifference(const std::vector<double>& aMs,
                                                 const std::vector<double>& bMs,
                                                 double level = 0.9);

} // namespace commprof::analysis
