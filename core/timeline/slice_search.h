// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Find slices by name across every rank of a stacked timeline: a substring or a regular
// expression, both ignoring case (as Perfetto's search does). Each distinct name is tested
// once, so a search costs one pass over the names and one over the events.

#include "slice_ref.h"
#include "timeline_stack.h"

#include <QString>

#include <vector>

namespace commprof::timeline {

struct SearchMatches {
    std::vector<SliceRef> slices;     // in display-time order (then rank, then event)
    std::vector<double> startsUs;     // display time of each, same order
    std::vector<std::size_t> perRank; // count per rank index
    QString error;                    // an invalid regular expression, said as Qt says it

    std::size_t count() const { return slices.size(); }
    // The match after (forward) or before display time `us`, wrapping around; count() if none.
    std::size_t nextAfter(double us, bool forward) const;
    // Position of `slice` among the matches; count() if it is not one.
    std::size_t indexOf(const SliceRef& slice) const;
};

SearchMatches searchSlices(const TimelineStack& stack, const QString& pattern, bool regex);

} // namespace commprof::timeline
