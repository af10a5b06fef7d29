// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The one weighted least-squares fit of commprof: y = a x1 + b x2 over weighted points, by the
// normal equations (Cramer's rule on the 2 x 2 system). Every line a model prices a collective
// with goes through it: a sweep's time = alpha + bytes x beta (collective_sweep.h: x1 = 1,
// weights 1 / time), the ring's alpha-beta across world sizes (cost_model.h: x1 the ring's
// latency steps, x2 the bytes each rank sends, weights 1 / time^2) and a trace's own
// collectives (whatif.cpp, through cost_model.h). What each refuses (too few sizes, a latency
// below zero, a line worse than the mean) stays with the caller: the fit itself refuses
// nothing, and a singular system gives det = 0 for the caller's own test.

#include <cmath>
#include <vector>

namespace commprof::analysis {

struct LsPoint {
    double x1 = 0, x2 = 0, y = 0;
    double weight = 1;
};

struct LsFit {
    double a = 0, b = 0; // meaningless where det is 0 (the caller refuses first)
    double det = 0;      // of the weighted normal matrix: s11 s22 - s12^2
    double s11 = 0, s12 = 0, s22 = 0, s1y = 0, s2y = 0; // the weighted sums
    int points = 0;
    // a's standard error from the weighted residuals' sum of squares, sum w (y - fit)^2, as the
    // caller computes them: sqrt(that / (points - 2) x s22 / det); 0 with no residual degree of
    // freedom.
    double aStandardError(double weightedSquaredResiduals) const {
        return points <= 2 || det == 0
                   ? 0
                   : std::sqrt(weightedSquaredResiduals / (points - 2) * s22 / det);
    }
};

inline LsFit weightedLeastSquares(const std::vector<LsPoint>& points) {
    LsFit fit;
    for (const LsPoint& p : points) {
        fit.s11 += p.weight * p.x1 * p.x1;
        fit.s12 += p.weight * p.x1 * p.x2;
        fit.s22 += p.weight * p.x2 * p.x2;
        fit.s1y += p.weight * p.x1 * p.y;
        fit.s2y += p.weight * p.x2 * p.y;
        ++fit.points;
    }
    fit.det = fit.s11 * fit.s22 - fit.s12 * fit.s12;
    if (fit.det != 0) {
        fit.a = (fit.s1y * fit.s22 - fit.s2y * fit.s12) / fit.det;
        fit.b = (fit.s2y * fit.s11 - fit.s1y * fit.s12) / fit.det;
    }
    return fit;
}

} // namespace commprof::analysis
