// SPDX-License-Identifier: GPL-3.0-or-later
#include "contention.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

namespace commprof::analysis {
namespace {

// The time within [from, to] that some collective of `it` was in flight on its rank.
double overlapUs(const trace::DdpIteration& it, double from, double to) {
    std::vector<std::pair<double, double>> spans;
    for (const trace::BucketCollective& b : it.buckets) {
        if (b.endUs) {
            spans.push_back({b.startUs.value_or(b.launchUs), *b.endUs});
        }
    }
    std::sort(spans.begin(), spans.end());
    double total = 0, reached = from;
    for (const auto& [start, end] : spans) {
        const double a = std::max(start, reached), b = std::min(end, to);
        if (b > a) {
            total += b - a;
            reached = b;
        }
    }
    return total;
}

} // namespace

ContentionEstimate contentionFromTraces(const std::vector<const trace::DdpRankSteps*>& traces) {
    // (rank, gradient) -> (overlap, duration) per step
    std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> byGap;
    for (std::size_t r = 0; r < traces.size(); ++r) {
        for (const trace::DdpIteration& it : traces[r]->iterations) {
            double from = it.backwardStartUs;
            for (std::size_t g = 0; g < it.gradientReadyUs.size(); ++g) {
                const double to = it.gradientReadyUs[g];
                if (to > from) {
                    byGap[{int(r), int(g)}].push_back({overlapUs(it, from, to), to - from});
                }
                from = std::max(from, to);
            }
        }
    }
    double sxx = 0, sxy = 0;
    int samples = 0, groups = 0, withOverlap = 0;
    std::vector<std::vector<std::pair<double, double>>> centred;
    for (const auto& [key, points] : byGap) {
        if (points.size() < 2) {
            continue;
        }
        double mx = 0, my = 0;
        for (const auto& [x, y] : points) {
            mx += x / double(points.size());
            my += y / double(points.size());
        }
        std::vector<std::pair<double, double>> c;
        bool any = false;
        for (const auto& [x, y] : points) {
            c.push_back({x - mx, y - my});
            sxx += (x - mx) * (x - mx);
            sxy += (x - mx) * (y - my);
            any = any || x > 0;
        }
        samples += int(points.size());
        ++groups;
        withOverlap += any ? 1 : 0;
        centred.push_back(std::move(c));
    }
    ContentionEstimate out;
    out.gaps = withOverlap;
    out.samples = samples;
    const int dof = samples - groups - 1;
    if (!(sxx > 0) || dof < 2) {
        out.share = 0.5;
        out.detail = QString("the trace cannot tell: no gradient's compute had a collective "
                             "beside it more in some steps than in others (%1 gap-steps)")
                         .arg(samples);
        return out;
    }
    const double slope = sxy / sxx;
    double rss = 0;
    for (const auto& c : centred) {
        for (const auto& [x, y] : c) {
            rss += (y - slope * x) * (y - slope * x);
        }
    }
    const double se = std::sqrt(rss / dof / sxx);
    out.determined = true;
    out.share = std::clamp(slope, 0.0, 1.0);
    out.low = std::clamp(slope - kZ90 * se, 0.0, 1.0);
    out.high = std::clamp(slope + kZ90 * se, 0.0, 1.0); // se >= 0: never below low
    out.detail = QString("from the trace: each gradient's compute against the collective time "
                         "beside it, over %1 gradient gaps with a collective beside them and %2 "
                         "gap-steps (slope %3, 90 % interval %4..%5)")
                     .arg(withOverlap)
                     .arg(samples)
                     .arg(slope, 0, 'g', 3)
                     .arg(out.low, 0, 'g', 3)
                     .arg(out.high, 0, 'g', 3);
    return out;
}

} // namespace commprof::analysis
