// SPDX-License-Identifier: GPL-3.0-or-later
#include "range_aggregate.h"

#include "spec/mapped.h"

#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>

namespace commprof::timeline {

std::vector<NameAggregate> aggregateRange(const TimelineStack& stack, double fromUs, double toUs) {
    if (!(toUs > fromUs)) {
        return {};
    }
    // Per rank by interned name (a hash of two integers per slice), then across ranks by the
    // text: ranks intern their names apart, and one name sums across them.
    std::map<std::pair<std::string, trace::EventClass>, NameAggregate> byName;
    for (std::size_t r = 0; r < stack.ranks.size(); ++r) {
        const RankTimeline& rank = *stack.ranks[r];
        const double from = stack.toTrace(r, fromUs);
        const double to = stack.toTrace(r, toUs);
        std::unordered_map<std::uint64_t, NameAggregate> byId;
        for (const auto& group : rank.groups) {
            for (const auto& lane : group.lanes) {
                for (std::size_t d = 0; d < lane.rows.size(); ++d) {
                    const SliceRow& row = lane.rows[d];
                    const SliceRow* below = d + 1 < lane.rows.size() ? &lane.rows[d + 1] : nullptr;
                    for (std::size_t i = row.firstEndingAfter(from);
                         i < row.size() && row.starts[i] < to; ++i) {
                        const double s = std::max(row.starts[i], from);
                        const double e = std::min(row.ends[i], to);
                        const double children = below ? below->coveredWithin(s, e) : 0;
                        auto& a =
                            byId[std::uint64_t(row.names[i]) << 8 | std::uint64_t(row.classes[i])];
                        ++a.count;
                        a.totalUs += e - s;
                        a.selfUs += std::max(0.0, (e - s) - children);
                    }
                }
            }
        }
        for (const auto& [key, a] : byId) {
            const std::string& name = rank.trace.strings.at(std::uint32_t(key >> 8));
            const auto cls = trace::EventClass(key & 0xff);
            auto& sum = byName[{name, cls}];
            if (sum.count == 0) {
                sum.name = QString::fromStdString(name);
                sum.cls = cls;
            }
            sum.count += a.count;
            sum.totalUs += a.totalUs;
            sum.selfUs += a.selfUs;
        }
    }
    auto out = spec::mapped<std::vector<NameAggregate>>(
        byName, [](const auto& name) { return name.second; });
    std::ranges::stable_sort(out, std::greater{}, &NameAggregate::totalUs);
    return out;
}

} // namespace commprof::timeline
