#pragma once
// Per-step compute / communication / bookkeeping figures as docs/trace-semantics.md defines them.

#include "intervals.h"
#include "trace_event.h"

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
};

struct StepMetrics {
    int step = 0;
    double startUs = 0, endUs = 0, stepUs = 0;
    double computeUs = 0, commUs = 0, bookkeepingUs = 0, overlapUs = 0, exposedCommUs = 0;
    std::optional<double> overlapEfficiency;    // null when commUs == 0
    std::optional<double> commOverheadFraction; // null when stepUs == 0
};

struct TraceSummary {
    Regime regime = Regime::Host;
    bool stepsMarked = false;
    std::vector<StepMetrics> steps;
    StepMetrics totals; // sums over steps; ratios recomputed from the sums
    std::vector<std::string> warnings;
};

// Step number of a "ProfilerStep#N" name, or nullopt.
std::optional<int> profilerStepNumber(const std::string& name);
// For each interned name, its ProfilerStep number, decided once per distinct name.
std::vector<std::optional<int>> stepNumbersByName(const Trace& trace);
// ProfilerStep#N merged by N (host and device), or one unmarked window over everything.
std::vector<StepWindow> stepWindows(const Trace& trace, bool* marked = nullptr);
ClassSpans classSpans(const Trace& trace);
StepMetrics measureWindow(const ClassSpans& spans, const StepWindow& window);
TraceSummary summarize(const Trace& trace);

} // namespace commprof::trace
