// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The vertical layout of a stacked timeline: which rows are shown, in what order, at what
// height, given which groups are collapsed. Per rank: a header, the four class lanes, then one
// header per process or device and, unless it is collapsed, one row per call-stack depth of
// each of its threads or streams.

#include "timeline_stack.h"

#include <cstdint>
#include <set>
#include <utility>
#include <vector>

namespace commprof::timeline {

enum class RowKind : std::uint8_t { Rank, Process, ClassLane, Slices };

struct LayoutRow {
    RowKind kind = RowKind::Rank;
    int rank = 0;   // index into TimelineStack::ranks
    int group = -1; // process group (Process, Slices), or class lane index (ClassLane)
    int lane = -1;  // thread lane (Slices)
    int depth = 0;  // call-stack depth (Slices)
    int top = 0;
    int height = 0;
    int bottom() const { return top + height; }
};

struct LayoutMetrics {
    int rankHeader = 22;
    int processHeader = 20;
    int classRow = 14;
    int sliceRow = 18;
};

// One thread or stream of one rank, as the user pins it to the top.
struct LaneKey {
    int rank = 0;
    int group = 0;
    int lane = 0;
    friend bool operator==(const LaneKey&, const LaneKey&) = default;
};

// What the user collapsed: ranks by index, processes by (rank index, group index).
struct CollapseState {
    std::set<int> ranks;
    std::set<std::pair<int, int>> groups;
    bool rankCollapsed(int rank) const { return ranks.count(rank) > 0; }
    bool groupCollapsed(int rank, int group) const { return groups.count({rank, group}) > 0; }
    void toggleRank(int rank);
    void toggleGroup(int rank, int group);
};

class TimelineLayout {
public:
    TimelineLayout() = default;
    TimelineLayout(const TimelineStack& stack, const CollapseState& collapsed,
                   const LayoutMetrics& metrics);

    // Only the given lanes, each with all its depth rows, in the order given (the pinned area
    // above the scrolled rows); a key that names no lane is left out.
    static TimelineLayout pinnedLanes(const TimelineStack& stack, const std::vector<LaneKey>& pins,
                                      const LayoutMetrics& metrics);

    const std::vector<LayoutRow>& rows() const { return rows_; }
    int height() const { return height_; }
    // The row at y (layout coordinates); rows().size() if none.
    std::size_t rowAt(int y) const;
    // The first row at or below y.
    std::size_t firstRowFrom(int y) const { return y < 0 ? 0 : rowAt(y); }
    // The row that shows an event's slice, or the header that hides it when collapsed
    // (rows().size() in a pinned layout that does not hold its lane).
    std::size_t rowOfSlice(int rank, const SlicePlace& place) const;
    // First row of a rank and one past its last.
    std::pair<std::size_t, std::size_t> rowsOfRank(int rank) const;

private:
    // Appends a row below the others; its index.
    std::size_t addRow(LayoutRow row, int height);

    std::vector<LayoutRow> rows_;
    int height_ = 0;
    std::vector<std::size_t> rankRow_;                        // per rank: its header
    std::vector<std::vector<std::size_t>> groupRow_;          // per rank, group: its header
    std::vector<std::vector<std::vector<std::size_t>>> lane_; // first row of each lane, or npos
};

} // namespace commprof::timeline
