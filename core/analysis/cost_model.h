// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Bandwidth figures and the alpha-beta (latency + bandwidth) model of a ring all-reduce:
//   T(n, p) = 2 (p - 1) alpha + 2 (p - 1) / p * n * beta
// for n bytes over p ranks, fitted per measurement layer from bucket timings: a fit across world
// sizes whose cost at one world size is collective_cost.h's CollectiveCost (ringCost).

#include "analysis/collective_cost.h"

#include <optional>
#include <vector>

namespace commprof::analysis {

struct BucketSample {
    int worldSize = 1;
    double bytes = 0;
    double seconds = 0;
};

// Algorithmic bandwidth: bytes / time.
double algorithmicBandwidth(double bytes, double seconds);
// Bus bandwidth as nccl-tests defines it for all-reduce: algbw * 2 (p - 1) / p.
double busBandwidth(double bytes, double seconds, int worldSize);

struct AlphaBetaFit {
    double alpha = 0; // seconds per step of the ring
    double beta = 0;  // seconds per byte
    double r2 = 0;
    int samples = 0; // those with p > 1 (p = 1 moves nothing and constrains neither term)
    std::vector<double> residuals; // seconds, measured - predicted, in input order (p > 1 only)
    std::optional<double> latencyFloor; // median time at p = 1: launch and synchronisation only
    // alpha's standard error from the relative residuals (0 with no residual degree of freedom):
    // how far the samples pin the latency down.
    double alphaStandardError = 0;
    double predict(double bytes, int worldSize) const { return cost(worldSize).fittedUs(bytes); }
    // One all-reduce's cost at `worldSize` (in seconds, as alpha and beta are).
    CollectiveCost cost(int worldSize) const { return ringCost(alpha, beta, worldSize); }
    // A line worse than the samples' own mean, or one where time falls with size, describes
    // nothing: it is neither drawn nor exported.
    bool describesSamples() const { return r2 >= 0 && beta > 0; }
};

// Least squares in (alpha, beta), weighted for relative error; nullopt when the samples
// cannot determine both.
std::optional<AlphaBetaFit> fitAlphaBeta(const std::vector<BucketSample>& samples);

} // namespace commprof::analysis
