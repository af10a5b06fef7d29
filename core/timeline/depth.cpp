// SPDX-License-Identifier: GPL-3.0-or-later
#include "depth.h"

#include <algorithm>
#include <cfloat>
#include <cmath>

namespace commprof::timeline {

double nestingSlackUs(double t) {
    return std::max(1e-6, 8 * DBL_EPSILON * std::abs(t));
}

std::vector<SliceRow> assignDepths(const trace::Trace& trace, std::vector<std::uint32_t> events,
                                   std::vector<std::uint32_t>* depthOut) {
    const auto& ev = trace.events;
    std::vector<std::uint32_t> order(events.size());
    for (std::uint32_t i = 0; i < order.size(); ++i) {
        order[i] = i;
    }
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        const auto& x = ev[events[a]];
        const auto& y = ev[events[b]];
        if (x.startUs != y.startUs) {
            return x.startUs < y.startUs;
        }
        if (x.endUs != y.endUs) {
            return x.endUs > y.endUs; // the enclosing slice first
        }
        return events[a] < events[b];
    });
    if (depthOut) {
        depthOut->assign(events.size(), 0);
    }
    std::vector<SliceRow> rows;
    std::vector<double> openEnds; // the end of the slice open on each row, innermost last
    for (const std::uint32_t k : order) {
        const auto& e = ev[events[k]];
        const double slack = nestingSlackUs(e.startUs);
        while (!openEnds.empty() && openEnds.back() <= e.startUs + slack) {
            openEnds.pop_back();
        }
        const std::size_t depth = openEnds.size();
        if (depth == rows.size()) {
            rows.emplace_back();
        }
        rows[depth].push(e.startUs, std::max(e.startUs, e.endUs), events[k], e.name, e.cls);
        openEnds.push_back(std::max(e.startUs, e.endUs));
        if (depthOut) {
            (*depthOut)[k] = std::uint32_t(depth);
        }
    }
    return rows;
}

double selfTimeUs(const std::vector<SliceRow>& rows, std::size_t depth, std::size_t index) {
    const SliceRow& row = rows[depth];
    const double start = row.starts[index];
    const double end = row.ends[index];
    const double children = depth + 1 < rows.size() ? rows[depth + 1].coveredWithin(start, end) : 0;
    return std::max(0.0, (end - start) - children);
}

} // namespace commprof::timeline
