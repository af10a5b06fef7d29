// SPDX-License-Identifier: GPL-3.0-or-later
#include "range_aggregate.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

namespace commprof::timeline {

std::vector<NameAggregate> aggregateRange(const TimelineStack& stack, double fromUs, double toUs) {
    // Ranks intern their names apart: the key is the text, so one name sums across ranks.
    std::map<std::pair<std::string, trace::EventClass>, NameAggregate> byName;
    if (!(toUs > fromUs)) {
        return {};
    }
    for (std::size_t r = 0; r < stack.ranks.size(); ++r) {
        const RankTimeline& rank = *stack.ranks[r];
        const double from = stack.toTrace(r, fromUs);
        const double to = stack.toTrace(r, toUs);
        for (const auto& group : rank.groups) {
            for (const auto& lane : group.lanes) {
                for (std::size_t d = 0; d < lane.rows.size(); ++d) {
                    const SliceRow& row = lane.rows[d];
                    const SliceRow* below = d + 1 < lane.rows.size() ? &lane.rows[d + 1] : nullptr;
                    for (std::size_t i = row.firstEndingAfter(from);
                         i < row.size() && row.starts[i] < to; ++i) {
                        const double s = std::max(row.starts[i], from);
                        const double e = std::min(row.ends[i], to);
                        if (e < s || (e == s && row.ends[i] > row.starts[i])) {
                            continue; // touches the range only at an edge
                        }
                        const double children = below ? below->coveredWithin(s, e) : 0;
                        const std::string& name = rank.trace.strings.at(row.names[i]);
                        auto& a = byName[{name, row.classes[i]}];
                        if (a.count == 0) {
                            a.name = QString::fromStdString(name);
                            a.cls = row.classes[i];
                        }
                        ++a.count;
                        a.totalUs += e - s;
                        a.selfUs += std::max(0.0, (e - s) - children);
                    }
                }
            }
        }
    }
    std::vector<NameAggregate> out;
    out.reserve(byName.size());
    for (auto& [key, a] : byName) {
        out.push_back(std::move(a));
    }
    std::stable_sort(out.begin(), out.end(), [](const NameAggregate& a, const NameAggregate& b) {
        return a.totalUs > b.totalUs;
    });
    return out;
}

} // namespace commprof::timeline
