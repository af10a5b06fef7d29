// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A selected time range summed by slice name, as Perfetto's area selection ("Slices") and
// hotspot's bottom-up view sum it: for every name (and class) of the slices that overlap the
// range on any rank, how many there are and how much of their total and self time falls
// inside the range. Durations are clipped to the range, so a step that only starts in it
// counts only its part; self time is the clipped time not covered by the slice's children.

#include "timeline_stack.h"

#include <QString>

#include <vector>

namespace commprof::timeline {

struct NameAggregate {
    QString name;
    trace::EventClass cls = trace::EventClass::NotCounted;
    std::size_t count = 0; // slices overlapping the range
    double totalUs = 0;    // their durations, clipped to the range
    double selfUs = 0;     // their self times, clipped to the range
};

// [fromUs, toUs] of display time, over every rank's threads and streams (not the class
// lanes). Sorted by total time, longest first, then by name.
std::vector<NameAggregate> aggregateRange(const TimelineStack& stack, double fromUs, double toUs);

} // namespace commprof::timeline
