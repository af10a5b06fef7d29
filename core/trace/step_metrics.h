// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Per-step compute / communication / bookkeeping / memory figures as
// docs/trace-semantics.md defines them.

#include "intervals.h"
#include "trace_event.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace commprof::trace {

struct StepWindow {
    int step = 0;
    Span window;
};

// Union spans of each class over the whole trace. In the host regime compute has
// bookkeeping already taken out.
struct ClassSpans {
    SpanSet compute;
    SpanSet communication;
    SpanSet bookkeeping;
    SpanSet memory;
};

struct StepMetrics {
    int step = 0;
    double startUs = 0, endUs = 0, stepUs = 0;
    double computeUs = 0, commUs = 0, bookkeepingUs = 0, memoryUs = 0, overlapUs = 0,
           exposedCommUs = 0;
    std::optional<double> overlapEfficiency;    // null when commUs == 0
    std::optional<double> commOverheadFraction; // null when stepUs == 0
    std::int64_t collectives = 0;               // collective records that start in the window
    std::optional<double> commBytes;            // their bytes; null when one of them has no size
};

struct TraceSummary {
    Regime regime = Regime::Host;
    bool stepsMarked = false;
    std::vector<StepMetrics> steps;
    StepMetrics totals;                       // sums over steps; ratios recomputed from the sums
    std::optional<Span> window;               // --window: what every figure was restricted to
    std::optional<StepMetrics> windowFigures; // the figures over the whole window
    std::vector<std::string> warnings;
};

// ProfilerStep#N merged by N (host and device), or one unmarked window over everything.
std::vector<StepWindow> stepWindows(const Trace& trace, bool* marked = nullptr);
ClassSpans classSpans(const Trace& trace);
StepMetrics measureWindow(const ClassSpans& spans, const StepWindow& window);
// Every figure restricted to `window` (trace microseconds) when one is given: steps are cut to
// it and steps outside it are left out.
TraceSummary summarize(const Trace& trace, std::optional<Span> window = std::nullopt);

} // namespace commprof::trace
