// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One drawn row of the timeline: slices that never overlap, in start order, so their ends are
// in order too and every range query is a binary search. A thread's call-stack depth, a
// stream, or a class lane's union spans are each one row.
//
// Level of detail: a row keeps coarser copies of itself in which slices shorter than a bucket
// (4^k ns) are merged per bucket, so that drawing at any zoom walks about as many entries as
// there are pixel columns, in memory order, instead of jumping through millions of slices.

#include "trace/trace_event.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace commprof::timeline {

inline constexpr std::uint32_t kMergedSlices = 0xffffffffu; // an entry standing for several

struct SliceRow {
    // Kept apart (not as structs) so the binary searches touch only the times.
    std::vector<double> starts;
    std::vector<double> ends;
    std::vector<std::uint32_t> events; // index into the trace's events; empty for union rows
    // Copies of each event's name and class, so drawing never reaches into the event array.
    std::vector<std::uint32_t> names;
    std::vector<trace::EventClass> classes;

    std::size_t size() const { return starts.size(); }
    bool empty() const { return starts.empty(); }
    void push(double start, double end, std::uint32_t event, std::uint32_t name,
              trace::EventClass cls);
    void pushSpan(double start, double end); // a union span (no event)

    // The first slice that ends after t: the first one that can be visible from t on.
    std::size_t firstEndingAfter(double t) const;
    // The first slice at or after `from` that starts at or after t. Searches outwards from
    // `from` first (galloping), so a jump to a nearby pixel column touches nearby memory.
    std::size_t firstStartingFrom(double t, std::size_t from = 0) const;
    // The slice that holds t, within `slackUs` on either side (the nearest if several);
    // size() when none.
    std::size_t sliceAt(double t, double slackUs) const;
    // Where `event` sits in this row, found by its start; size() when not here.
    std::size_t indexOf(std::uint32_t event, double start) const;
    // Total length of the slices clipped to [from, to].
    double coveredWithin(double from, double to) const;

    // Coarser copies, finest first; levelBucketUs[k] is the bucket of levels[k].
    std::vector<SliceRow> levels;
    std::vector<double> levelBucketUs;
    // Builds `levels` (once the row is complete). Merged entries keep the first slice's name
    // and class, and kMergedSlices as their event.
    void buildLevels();
    // The coarsest copy whose buckets are at most half of `usPerPixel`: merging inside it never
    // changes a pixel that drawing this row would have coloured.
    const SliceRow& forResolution(double usPerPixel) const;
};

} // namespace commprof::timeline
