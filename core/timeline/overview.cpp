// SPDX-License-Identifier: GPL-3.0-or-later
#include "overview.h"

#include <algorithm>

namespace commprof::timeline {

TraceOverview buildOverview(const TimelineStack& stack, std::size_t bins) {
    TraceOverview o;
    o.bins = std::max<std::size_t>(1, bins);
    o.binUs = std::max(stack.endUs, 1e-9) / double(o.bins);
    for (std::size_t r = 0; r < stack.ranks.size(); ++r) {
        const RankTimeline& rank = *stack.ranks[r];
        RankActivity a;
        a.rankNumber = rank.rank;
        for (std::size_t c = 0; c < kOverviewClasses && c < rank.classLanes.size(); ++c) {
            const SliceRow& row = rank.classLanes[c].row;
            auto& busy = a.busy[c];
            busy.assign(o.bins, 0.0f);
            // One walk over the spans in time order: each span adds its overlap to the bins it
            // touches, so the cost is spans + bins, not bins x log(spans).
            for (std::size_t i = 0; i < row.size(); ++i) {
                const double s = stack.toDisplay(r, row.starts[i]) - o.startUs;
                const double e = stack.toDisplay(r, row.ends[i]) - o.startUs;
                if (e <= 0 || s >= o.binUs * double(o.bins)) {
                    continue;
                }
                auto b = std::size_t(std::max(0.0, s) / o.binUs);
                for (; b < o.bins; ++b) {
                    const double b0 = o.binUs * double(b);
                    const double b1 = b0 + o.binUs;
                    if (b0 >= e) {
                        break;
                    }
                    busy[b] += float((std::min(e, b1) - std::max(s, b0)) / o.binUs);
                }
            }
            for (float& f : busy) {
                f = std::clamp(f, 0.0f, 1.0f);
            }
        }
        o.ranks.push_back(std::move(a));
    }
    return o;
}

} // namespace commprof::timeline
