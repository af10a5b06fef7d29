// SPDX-License-Identifier: GPL-3.0-or-later
#include "collective_places.h"

#include "collectives.h"

#include <map>
#include <tuple>

namespace commprof::trace {

std::optional<int> stepAt(const std::vector<StepWindow>& steps, double t) {
    for (const auto& s : steps) {
        if (t >= s.window.start && t < s.window.end) {
            return s.step;
        }
    }
    return std::nullopt;
}

std::vector<CollectivePlace> collectivePlaces(const std::vector<CollectiveRecord>& records,
                                              const std::vector<StepWindow>& steps,
                                              const std::optional<Span>& window) {
    std::vector<CollectivePlace> out;
    std::map<std::tuple<std::string, std::optional<int>>, std::uint32_t> ordinals;
    for (std::size_t i = 0; i < records.size(); ++i) {
        const CollectiveRecord& c = records[i];
        if (!startsIn(c, window)) {
            continue;
        }
        CollectivePlace p;
        p.record = i;
        p.processGroup = c.processGroup.empty() ? "default" : c.processGroup;
        p.seq = c.seq;
        p.step = stepAt(steps, c.startUs);
        if (!c.seq) {
            p.ordinal = ordinals[{p.processGroup, p.step}]++;
        }
        out.push_back(std::move(p));
    }
    return out;
}

} // namespace commprof::trace
