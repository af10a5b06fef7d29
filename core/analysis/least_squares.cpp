// SPDX-License-Identifier: GPL-3.0-or-later
#include "least_squares.h"

#include <cmath>

namespace commprof::analysis {

LsFit weightedLeastSquares(const std::vector<LsPoint>& points) {
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

double LsFit::aStandardError(double weightedSquaredResiduals) const {
    return points <= 2 || det == 0 ? 0
                                   : std::sqrt(weightedSquaredResiduals / (points - 2) * s22 / det);
}

} // namespace commprof::analysis
