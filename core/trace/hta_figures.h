#pragma once
// Figures under Holistic Trace Analysis' own definitions (get_comm_comp_overlap and
// get_temporal_breakdown), so users can check commprof against HTA. These are not
// commprof's own semantics: they look only at device events and ignore host communication.

#include "trace_event.h"

#include <optional>

namespace commprof::trace {

struct HtaFigures {
    std::optional<double> compCommOverlapPctg; // null when there is no communication kernel
    double idleTimeUs = 0;
    double computeTimeUs = 0;
    double nonComputeTimeUs = 0;
    double kernelTimeUs = 0;
    std::size_t deviceEvents = 0;
};

HtaFigures htaFigures(const Trace& trace);

} // namespace commprof::trace
