// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Figures under Holistic Trace Analysis 0.6.1's own definitions (get_comm_comp_overlap and
// get_temporal_breakdown), quirks included, so users can check commprof against HTA. These
// are not commprof's own semantics: see docs/trace-semantics.md, "HTA-compatible figures".

#include "intervals.h"
#include "trace_event.h"

#include <optional>
#include <string>
#include <vector>

namespace commprof::trace {

struct HtaFigures {
    // All null when the trace has no device events, or when HTA itself would fail on it (its
    // own checks); `warnings` then says which.
    std::optional<double> compCommOverlapPctg; // also null when there is no communication
    std::optional<double> idleTimeUs;
    std::optional<double> computeTimeUs;
    std::optional<double> nonComputeTimeUs;
    std::optional<double> kernelTimeUs;
    std::size_t deviceEvents = 0;
    std::vector<std::string> warnings;
};

// window: HTA's TimeRangeFilter, events entirely inside it (trace microseconds).
HtaFigures htaFigures(const Trace& trace, std::optional<Span> window = std::nullopt);

} // namespace commprof::trace
