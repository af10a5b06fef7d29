// SPDX-License-Identifier: GPL-3.0-or-later
#include "timeline_layout.h"

#include <algorithm>

namespace commprof::timeline {
constexpr std::size_t kNone = std::size_t(-1);

void CollapseState::toggleRank(int rank) {
    if (!ranks.erase(rank)) {
        ranks.insert(rank);
    }
}

void CollapseState::toggleGroup(int rank, int group) {
    if (!groups.erase({rank, group})) {
        groups.insert({rank, group});
    }
}

TimelineLayout::TimelineLayout(const TimelineStack& stack, const CollapseState& collapsed,
                               const LayoutMetrics& metrics) {
    for (int r = 0; r < int(stack.ranks.size()); ++r) {
        const RankTimeline& rank = *stack.ranks[std::size_t(r)];
        rankRow_.push_back(addRow({RowKind::Rank, r}, metrics.rankHeader));
        groupRow_.emplace_back(rank.groups.size(), rankRow_.back());
        lane_.emplace_back(rank.groups.size());
        if (collapsed.rankCollapsed(r)) {
            continue;
        }
        for (int c = 0; c < int(rank.classLanes.size()); ++c) {
            addRow({RowKind::ClassLane, r, c}, metrics.classRow);
        }
        for (int g = 0; g < int(rank.groups.size()); ++g) {
            const ProcessGroup& group = rank.groups[std::size_t(g)];
            groupRow_.back()[std::size_t(g)] =
                addRow({RowKind::Process, r, g}, metrics.processHeader);
            auto& lanes = lane_.back()[std::size_t(g)];
            lanes.assign(group.lanes.size(), kNone);
            if (collapsed.groupCollapsed(r, g)) {
                continue;
            }
            for (int l = 0; l < int(group.lanes.size()); ++l) {
                const auto& lane = group.lanes[std::size_t(l)];
                lanes[std::size_t(l)] = rows_.size();
                for (int d = 0; d < int(std::max<std::size_t>(1, lane.rows.size())); ++d) {
                    addRow({RowKind::Slices, r, g, l, d}, metrics.sliceRow);
                }
            }
        }
    }
}

std::size_t TimelineLayout::addRow(LayoutRow row, int height) {
    row.top = height_;
    row.height = height;
    height_ += height;
    rows_.push_back(row);
    return rows_.size() - 1;
}

TimelineLayout TimelineLayout::pinnedLanes(const TimelineStack& stack,
                                           const std::vector<LaneKey>& pins,
                                           const LayoutMetrics& metrics) {
    TimelineLayout l;
    for (const auto& rank : stack.ranks) {
        l.rankRow_.push_back(kNone);
        l.groupRow_.emplace_back(rank->groups.size(), kNone);
        auto& groups = l.lane_.emplace_back(rank->groups.size());
        for (std::size_t g = 0; g < rank->groups.size(); ++g) {
            groups[g].assign(rank->groups[g].lanes.size(), kNone);
        }
    }
    for (const LaneKey& k : pins) {
        if (k.rank < 0 || std::size_t(k.rank) >= stack.ranks.size()) {
            continue;
        }
        const RankTimeline& rank = *stack.ranks[std::size_t(k.rank)];
        if (k.group < 0 || std::size_t(k.group) >= rank.groups.size() || k.lane < 0 ||
            std::size_t(k.lane) >= rank.groups[std::size_t(k.group)].lanes.size()) {
            continue;
        }
        const auto& lane = rank.groups[std::size_t(k.group)].lanes[std::size_t(k.lane)];
        l.lane_[std::size_t(k.rank)][std::size_t(k.group)][std::size_t(k.lane)] = l.rows_.size();
        for (int d = 0; d < int(std::max<std::size_t>(1, lane.rows.size())); ++d) {
            l.addRow({RowKind::Slices, k.rank, k.group, k.lane, d}, metrics.sliceRow);
        }
    }
    return l;
}

std::size_t TimelineLayout::rowAt(int y) const {
    if (y < 0 || y >= height_) {
        return rows_.size();
    }
    // Rows are contiguous: the last one whose top is at or above y holds it.
    const auto it = std::ranges::upper_bound(rows_, y, {}, &LayoutRow::top);
    return std::size_t(it - rows_.begin()) - 1;
}

std::size_t TimelineLayout::rowOfSlice(int rank, const SlicePlace& place) const {
    if (rank < 0 || std::size_t(rank) >= lane_.size()) {
        return rows_.size();
    }
    const auto& groups = lane_[std::size_t(rank)];
    std::size_t row = kNone;
    if (place.group >= groups.size()) {
        row = rankRow_[std::size_t(rank)];
    } else if (const auto& lanes = groups[place.group];
               place.lane >= lanes.size() || lanes[place.lane] == kNone) {
        row = groupRow_[std::size_t(rank)][place.group];
    } else {
        row = lanes[place.lane] + place.depth;
    }
    return std::min(row, rows_.size());
}

std::pair<std::size_t, std::size_t> TimelineLayout::rowsOfRank(int rank) const {
    if (rank < 0 || std::size_t(rank) >= rankRow_.size()) {
        return {rows_.size(), rows_.size()};
    }
    const std::size_t next =
        std::size_t(rank) + 1 < rankRow_.size() ? rankRow_[std::size_t(rank) + 1] : rows_.size();
    return {rankRow_[std::size_t(rank)], next};
}

} // namespace commprof::timeline
