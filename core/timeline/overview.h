// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The overview strip's content: how busy each rank is over the whole trace, per class, in a
// fixed number of equal time bins, computed once per load so that the strip only paints (as
// Perfetto's overview timeline: the whole trace at a glance, whatever the zoom below it).

#include "timeline_stack.h"

#include <array>
#include <vector>

namespace commprof::timeline {

// The classes the strip shows, in the order of RankTimeline::classLanes.
inline constexpr std::size_t kOverviewClasses = 4;

struct RankActivity {
    int rankNumber = 0;
    // Per class lane, per bin: the fraction of the bin (0 to 1) its union spans cover.
    std::array<std::vector<float>, kOverviewClasses> busy;
};

struct TraceOverview {
    double startUs = 0; // display time of the first bin's start
    double binUs = 0;   // every bin's length
    std::size_t bins = 0;
    std::vector<RankActivity> ranks; // in the stack's rank order

    double endUs() const { return startUs + binUs * double(bins); }
};

// [0, stack.endUs] in `bins` bins (at least one).
TraceOverview buildOverview(const TimelineStack& stack, std::size_t bins);

} // namespace commprof::timeline
