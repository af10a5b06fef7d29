// SPDX-License-Identifier: GPL-3.0-or-later
#include "cost_model.h"

#include "analysis/least_squares.h"

#include <algorithm>
#include <cmath>

namespace commprof::analysis {

double algorithmicBandwidth(double bytes, double seconds) {
    return seconds > 0 ? bytes / seconds : 0.0;
}

double busBandwidth(double bytes, double seconds, int worldSize) {
    return worldSize > 0 ? algorithmicBandwidth(bytes, seconds) * 2.0 * (worldSize - 1) / worldSize
                         : 0.0;
}

std::optional<AlphaBetaFit> fitAlphaBeta(const std::vector<BucketSample>& samples) {
    // y = alpha x1 + beta x2 without intercept, by the one weighted least squares
    // (least_squares.h). Timing noise is relative (a few % of each bucket's time), so each
    // sample is weighted by 1/y^2: plain least squares would let the largest buckets' noise
    // swamp the latency term.
    std::vector<LsPoint> points;
    std::vector<double> floor;
    AlphaBetaFit fit;
    double mean = 0;
    for (const auto& s : samples) {
        if (s.worldSize <= 1) {
            floor.push_back(s.seconds);
            continue;
        }
        if (!(s.seconds > 0)) {
            continue;
        }
        points.push_back({RingAllReduce::latencySteps(s.worldSize),
                          RingAllReduce::byteShare(s.worldSize) * s.bytes, s.seconds,
                          1.0 / (s.seconds * s.seconds)});
        mean += s.seconds;
        ++fit.samples;
    }
    if (!floor.empty()) {
        std::nth_element(floor.begin(), floor.begin() + long(floor.size() / 2), floor.end());
        fit.latencyFloor = floor[floor.size() / 2];
    }
    const LsFit ls = weightedLeastSquares(points);
    // Refused: fewer than two samples, or a system singular to within rounding.
    if (fit.samples < 2 || !(std::fabs(ls.det) > 1e-300 * std::max(1.0, ls.s11 * ls.s22))) {
        return std::nullopt;
    }
    fit.alpha = ls.a;
    fit.beta = ls.b;
    mean /= fit.samples;
    double ssRes = 0, ssTot = 0, weighted = 0;
    for (const auto& s : samples) {
        if (s.worldSize <= 1 || !(s.seconds > 0)) {
            continue;
        }
        const double r = s.seconds - fit.predict(s.bytes, s.worldSize);
        fit.residuals.push_back(r);
        ssRes += r * r;
        ssTot += (s.seconds - mean) * (s.seconds - mean);
        weighted += r * r / (s.seconds * s.seconds);
    }
    fit.r2 = ssTot > 0 ? 1.0 - ssRes / ssTot : 1.0;
    fit.alphaStandardError = ls.aStandardError(weighted);
    return fit;
}

} // namespace commprof::analysis
