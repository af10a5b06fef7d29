// SPDX-License-Identifier: GPL-3.0-or-later
#include "flow_index.h"

#include <algorithm>

namespace commprof::timeline {

FlowIndex::FlowIndex(const trace::Trace& trace) : byLaunch_(trace.flows), byDevice_(trace.flows) {
    std::sort(byLaunch_.begin(), byLaunch_.end(), [](const auto& a, const auto& b) {
        return a.launch != b.launch ? a.launch < b.launch : a.device < b.device;
    });
    std::sort(byDevice_.begin(), byDevice_.end(), [](const auto& a, const auto& b) {
        return a.device != b.device ? a.device < b.device : a.launch < b.launch;
    });
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
    auto launches = std::equal_range(
        byLaunch_.begin(), byLaunch_.end(), trace::FlowLink{event, 0},
        [](const trace::FlowLink& a, const trace::FlowLink& b) { return a.launch < b.launch; });
    for (auto it = launches.first; it != launches.second; ++it) {
        add(it->device, true);
    }
    auto devices = std::equal_range(
        byDevice_.begin(), byDevice_.end(), trace::FlowLink{0, event},
        [](const trace::FlowLink& a, const trace::FlowLink& b) { return a.device < b.device; });
    for (auto it = devices.first; it != devices.second; ++it) {
        add(it->launch, true);
    }
    const auto& self = trace.events[event];
    if (self.correlation >= 0) {
        // Only across the host/device line: two host spans can share an id by accident of
        // the producer (a ROCm runtime call and its own API span), and neither launched the other.
        auto same =
            std::equal_range(byCorrelation_.begin(), byCorrelation_.end(),
                             std::pair<std::int64_t, std::uint32_t>{self.correlation, 0},
                             [](const auto& a, const auto& b) { return a.first < b.first; });
        for (auto it = same.first; it != same.second; ++it) {
            if (trace.events[it->second].deviceWork() != self.deviceWork()) {
                add(it->second, false);
            }
        }
    }
    std::sort(out.begin(), out.end(), [&](const FlowPartner& a, const FlowPartner& b) {
        return trace.events[a.event].startUs < trace.events[b.event].startUs;
    });
    return out;
}

} // namespace commprof::timeline
