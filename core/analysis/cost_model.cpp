// SPDX-License-Identifier: GPL-3.0-or-later
#include "cost_model.h"

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
    // Weighted normal equations of y = a x1 + b x2 without intercept. Timing noise is
    // relative (a few % of each bucket's time), so each sample is weighted by 1/y^2: plain
    // least squares would let the largest buckets' noise swamp the latency term.
    double s11 = 0, s12 = 0, s22 = 0, s1y = 0, s2y = 0;
    std::vector<double> floor;
    AlphaBetaFit fit;
    for (const auto& s : samples) {
        if (s.worldSize <= 1) {
            floor.push_back(s.seconds);
            continue;
        }
        if (!(s.seconds > 0)) {
            continue;
        }
        const double w = 1.0 / (s.seconds * s.seconds);
        const double x1 = RingAllReduce::latencySteps(s.worldSize);
        const double x2 = RingAllReduce::byteShare(s.worldSize) * s.bytes;
        s11 += w * x1 * x1;
        s12 += w * x1 * x2;
        s22 += w * x2 * x2;
        s1y += w * x1 * s.seconds;
        s2y += w * x2 * s.seconds;
        ++fit.samples;
    }
    if (!floor.empty()) {
        std::nth_element(floor.begin(), floor.begin() + long(floor.size() / 2), floor.end());
        fit.latencyFloor = floor[floor.size() / 2];
    }
    const double det = s11 * s22 - s12 * s12;
    if (fit.samples < 2 || !(std::fabs(det) > 1e-300 * std::max(1.0, s11 * s22))) {
        return std::nullopt;
    }
    fit.alpha = (s1y * s22 - s2y * s12) / det;
    fit.beta = (s2y * s11 - s1y * s12) / det;
    double mean = 0;
    for (const auto& s : samples) {
        if (s.worldSize > 1 && s.seconds > 0) {
            mean += s.seconds;
        }
    }
    mean /= fit.samples;
    double ssRes = 0, ssTot = 0;
    for (const auto& s : samples) {
        if (s.worldSize <= 1 || !(s.seconds > 0)) {
            continue;
        }
        const double r = s.seconds - fit.predict(s.bytes, s.worldSize);
        fit.residuals.push_back(r);
        ssRes += r * r;
        ssTot += (s.seconds - mean) * (s.seconds - mean);
    }
    fit.r2 = ssTot > 0 ? 1.0 - ssRes / ssTot : 1.0;
    if (fit.samples > 2) {
        // The weighted residual variance times alpha's entry of the inverse normal matrix.
        double weighted = 0;
        std::size_t i = 0;
        for (const auto& s : samples) {
            if (s.worldSize > 1 && s.seconds > 0) {
                weighted += fit.residuals[i] * fit.residuals[i] / (s.seconds * s.seconds);
                ++i;
            }
        }
        fit.alphaStandardError = std::sqrt(weighted / (fit.samples - 2) * s22 / det);
    }
    return fit;
}

} // namespace commprof::analysis
