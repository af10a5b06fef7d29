// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Launch <-> device partners of a slice: the kernel or copy a runtime call started, or the
// call that started a kernel. Kineto links them twice: an `ac2g` flow (Trace::flows) and the
// shared `correlation` id of the runtime call and its device activity. Either is enough;
// both are followed, and a partner found both ways is listed once.

#include "trace/trace_event.h"

#include <cstdint>
#include <vector>

namespace commprof::timeline {

struct FlowPartner {
    std::uint32_t event = 0;
    bool isDevice = false; // the partner is the device side (a kernel, copy or memset)
    bool viaFlow = false;  // an ac2g flow joins them
    bool viaCorrelation = false;
};

class FlowIndex {
public:
    FlowIndex() = default;
    explicit FlowIndex(const trace::Trace& trace);
    // In start order.
    std::vector<FlowPartner> partners(const trace::Trace& trace, std::uint32_t event) const;

private:
    std::vector<trace::FlowLink> byLaunch_; // sorted by launch
    std::vector<trace::FlowLink> byDevice_; // sorted by device
    // (correlation, event) of every event that has one, sorted.
    std::vector<std::pair<std::int64_t, std::uint32_t>> byCorrelation_;
};

} // namespace commprof::timeline
