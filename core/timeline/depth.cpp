// SPDX-License-Identifier: GPL-3.0-or-later
#include "depth.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <numeric>
#include <tuple>

namespace commprof::timeline {

double nestingSlackUs(double t) {
    return std::max(1e-6, 8 * DBL_EPSILON * std::abs(t));
}

std::vector<SliceRow> assignDepths(const trace::Trace& trace, std::vector<std::uint32_t> events,
                                   std::vector<std::uint32_t>* depthOut) {
    const auto& ev = trace.events;
    std::vector<std::uint32_t> order(events.size());
    std::iota(order.begin(), order.end(), 0u);
    std::ranges::sort(order, {}, [&](std::uint32_t k) {
        // By start, the enclosing slice first.
        return std::tuple(ev[events[k]].startUs, -ev[events[k]].endUs, events[k]);
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
