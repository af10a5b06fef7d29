// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Call-stack depth within one thread or stream: one row per depth, so a ProfilerStep and the
// ops inside it are both visible.
//
// The rule, in start order (a longer slice before a shorter one that starts with it): a slice
// goes one row below the innermost slice still open when it starts. A slice that outlives the
// one above it (a partial overlap, which Chrome traces allow) still gets that row, so no two
// slices of one row ever overlap and none is drawn over another. A slice that starts when the
// one before it ends (within rounding) is its sibling, not its child.

#include "slice_row.h"
#include "trace/trace_event.h"

#include <vector>

namespace commprof::timeline {

// The rows of `events` (indices into trace.events, any order), row 0 first. depthOut, when
// given, receives each event's row in the same order as `events`.
std::vector<SliceRow> assignDepths(const trace::Trace& trace, std::vector<std::uint32_t> events,
                                   std::vector<std::uint32_t>* depthOut = nullptr);

// What `rows[depth][index]` spends outside its children: its duration minus the time covered
// by the row below it within its span.
double selfTimeUs(const std::vector<SliceRow>& rows, std::size_t depth, std::size_t index);

// Two times closer than this are the same time: the rounding of a double at that magnitude.
double nestingSlackUs(double t);

} // namespace commprof::timeline
