// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Every rank of one cell (or one trace alone) on a common time axis. Display time is
// microseconds from the earliest event of all ranks after alignment; each rank maps its own
// trace times onto it with one offset.
//
// Clocks: ranks on one machine share CLOCK_MONOTONIC (commprof-rank's traces, Kineto on one
// host), so their traces overlap in time and are shown as written. Traces that do not overlap
// at all cannot be on one clock (the ranks of one job run at the same time): they came from
// hosts whose clocks differ, and each rank is shifted so that its first collective ends where
// the first rank's does (a collective ends nearly together on every rank: none can finish
// before the last one joins). The ruler says so. A rank without any collective is aligned on
// its first event instead, and named in the note.

#include "rank_timeline.h"

#include <QString>

#include <memory>
#include <vector>

namespace commprof::timeline {

enum class ClockMode { Single, Shared, AlignedOnCollective };

struct ClockAlignment {
    ClockMode mode = ClockMode::Single;
    // Added to each rank's trace times to put them on the first rank's clock.
    std::vector<double> shiftUs;
    std::vector<int> withoutCollective; // ranks (numbers) aligned on their first event instead
    QString note;                       // for the ruler; empty when nothing was shifted
};

ClockAlignment alignClocks(const std::vector<const RankTimeline*>& ranks);

struct TimelineStack {
    std::vector<std::shared_ptr<const RankTimeline>> ranks; // in rank order
    ClockAlignment clocks;
    std::vector<double> offsetsUs; // display time = trace time + offset
    double endUs = 1;              // display time of the last event; the first is at 0
    std::vector<QString> warnings; // ranks that could not be read, and why

    double toDisplay(std::size_t rank, double traceUs) const { return traceUs + offsetsUs[rank]; }
    double toTrace(std::size_t rank, double displayUs) const { return displayUs - offsetsUs[rank]; }
};

TimelineStack stackRanks(std::vector<std::shared_ptr<const RankTimeline>> ranks);

} // namespace commprof::timeline
