// SPDX-License-Identifier: GPL-3.0-or-later
#include "paired_difference.h"

#include <array>
#include <cmath>
#include <numeric>

namespace commprof::analysis {
namespace {

// Upper quantiles of Student's t (scipy.stats.t.ppf(1 - (1 - level) / 2, df)) for df 1..30, then
// 40, 60, 120 and infinity, for the levels a confirmation may ask for.
struct TRow {
    double level;
    std::array<double, 34> q;
};
constexpr TRow kRows[] = {
    {0.8, {3.078, 1.886, 1.638, 1.533, 1.476, 1.440, 1.415, 1.397, 1.383, 1.372, 1.363, 1.356,
           1.350, 1.345, 1.341, 1.337, 1.333, 1.330, 1.328, 1.325, 1.323, 1.321, 1.319, 1.318,
           1.316, 1.315, 1.314, 1.313, 1.311, 1.310, 1.303, 1.296, 1.289, 1.282}},
    {0.9, {6.314, 2.920, 2.353, 2.132, 2.015, 1.943, 1.895, 1.860, 1.833, 1.812, 1.796, 1.782,
           1.771, 1.761, 1.753, 1.746, 1.740, 1.734, 1.729, 1.725, 1.721, 1.717, 1.714, 1.711,
           1.708, 1.706, 1.703, 1.701, 1.699, 1.697, 1.684, 1.671, 1.658, 1.645}},
    {0.95, {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
            2.160,  2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
            2.060,  2.056, 2.052, 2.048, 2.045, 2.042, 2.021, 2.000, 1.980, 1.960}},
    {0.99, {63.657, 9.925, 5.841, 4.604, 4.032, 3.707, 3.499, 3.355, 3.250, 3.169, 3.106, 3.055,
            3.012,  2.977, 2.947, 2.921, 2.898, 2.878, 2.861, 2.845, 2.831, 2.819, 2.807, 2.797,
            2.787,  2.779, 2.771, 2.763, 2.756, 2.750, 2.704, 2.660, 2.617, 2.576}},
};

} // namespace

std::optional<double> studentT(double level, int df) {
    if (df < 1) {
        return std::nullopt;
    }
    for (const TRow& row : kRows) {
        if (std::abs(row.level - level) > 1e-9) {
            continue;
        }
        if (df <= 30) {
            return row.q[std::size_t(df - 1)];
        }
        // Between the tabulated df the quantile is close to linear in 1/df.
        constexpr int kDf[] = {30, 40, 60, 120};
        for (std::size_t k = 0; k + 1 < std::size(kDf); ++k) {
            if (df <= kDf[k + 1]) {
                const double x0 = 1.0 / kDf[k], x1 = 1.0 / kDf[k + 1], x = 1.0 / df;
                const double q0 = row.q[29 + k], q1 = row.q[30 + k];
                return q1 + (q0 - q1) * (x - x1) / (x0 - x1);
            }
        }
        const double x0 = 1.0 / 120, x = 1.0 / df;
        return row.q[33] + (row.q[32] - row.q[33]) * x / x0;
    }
    return std::nullopt;
}

std::optional<PairedDifference> pairedDifference(const std::vector<double>& aMs,
                                                 const std::vector<double>& bMs, double level) {
    if (aMs.size() != bMs.size() || aMs.size() < 2) {
        return std::nullopt;
    }
    std::vector<double> d;
    for (std::size_t i = 0; i < aMs.size(); ++i) {
        if (!std::isfinite(aMs[i]) || !std::isfinite(bMs[i])) {
            return std::nullopt;
        }
        d.push_back(bMs[i] - aMs[i]);
    }
    const std::optional<double> t = studentT(level, int(d.size()) - 1);
    if (!t) {
        return std::nullopt;
    }
    PairedDifference out;
    out.pairs = int(d.size());
    out.level = level;
    out.meanMs = std::accumulate(d.begin(), d.end(), 0.0) / double(d.size());
    const double ss = std::accumulate(d.begin(), d.end(), 0.0, [&](double sum, double x) {
        return sum + (x - out.meanMs) * (x - out.meanMs);
    });
    out.sdMs = std::sqrt(ss / double(d.size() - 1));
    const double half = *t * out.sdMs / std::sqrt(double(d.size()));
    out.lowMs = out.meanMs - half;
    out.highMs = out.meanMs + half;
    return out;
}

} // namespace commprof::analysis
