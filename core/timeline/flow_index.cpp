// SPDX-License-Identifier: GPL-3.0-or-later
#include "flow_index.h"

#include <algorithm>

namespace commprof::timeline {

FlowIndex::FlowIndex(const trace::Trace& trace) : byLaunch_(trace.flows), byDevice_(trace.flows) {
    std::ranges::sort(byLaunch_, {}, [](const auto& f) { return std::pair(f.launch, f.device); });
    std::ranges::sort(byDevice_, {}, [](const auto& f) { return std::pair(f.device, f.launch); });
    for (std::uint32_t i = 0; i < trace.events.size(); ++i) {
        if (trace.events[i].correlation >= 0) {
            byCorrelation_.emplace_back(trace.events[i].correlation, i);
        }
    }
    std::sort(byCorrelation_.begin(), byCorrelation_.end());
}

std::vector<FlowPartner> FlowIndex::partners(const trace::Trace& trace, std::uint32_t event) const {
    std::vector<FlowPartner> out;
    auto add = [&](std::uint32_t other, bool flow) {
        if (other == event || other >= trace.events.size()) {
            return;
        }
        for (auto& p : out) {
            if (p.event == other) {
                p.viaFlow = p.viaFlow || flow;
                p.viaCorrelation = p.viaCorrelation || !flow;
                return;
            }
        }
        out.push_back({other, trace.events[other].deviceWork(), flow, !flow});
    };
    for (const auto& f : std::ranges::equal_range(byLaunch_, event, {}, &trace::FlowLink::launch)) {
        add(f.device, true);
    }
    for (const auto& f : std::ranges::equal_range(byDevice_, event, {}, &trace::FlowLink::device)) {
        add(f.launch, true);
    }
    const auto& self = trace.events[event];
    if (self.correlation >= 0) {
        // Only across the host/device line: two host spans can share an id by accident of
        // the producer (a ROCm runtime call and its own API span), and neither launched the other.
        for (const auto& [id, other] :
             std::ranges::equal_range(byCorrelation_, self.correlation, {},
                                      &std::pair<std::int64_t, std::uint32_t>::first)) {
            if (trace.events[other].deviceWork() != self.deviceWork()) {
                add(other, false);
            }
        }
    }
    std::ranges::sort(out, {}, [&](const FlowPartner& p) { return trace.events[p.event].startUs; });
    return out;
}

} // namespace commprof::timeline
