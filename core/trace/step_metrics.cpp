// SPDX-License-Identifier: GPL-3.0-or-later
#include "step_metrics.h"

#include "spec/mapped.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <map>

namespace commprof::trace {
namespace {

std::optional<double> ratio(double num, double den) {
    return den > 0.0 ? std::optional(num / den) : std::nullopt;
}

void finishRatios(StepMetrics& m) {
    // overlap and comm are measured separately; rounding must not make their difference < 0.
    m.exposedCommUs = std::max(0.0, m.commUs - m.overlapUs);
    m.overlapEfficiency = ratio(m.overlapUs, m.commUs);
    m.commOverheadFraction = ratio(m.exposedCommUs, m.stepUs);
}

// Step number of a "ProfilerStep#N" name, or nullopt.
std::optional<int> profilerStepNumber(const std::string& name) {
    constexpr std::string_view prefix = "ProfilerStep#";
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) {
        return std::nullopt;
    }
    int n = 0;
    const char* first = name.data() + prefix.size();
    const char* last = name.data() + name.size();
    const auto res = std::from_chars(first, last, n);
    if (res.ec != std::errc() || res.ptr != last) {
        return std::nullopt;
    }
    return n;
}

void countCollectives(const Trace& trace, StepMetrics& m) {
    double bytes = 0;
    bool allSized = true;
    for (const auto& c : trace.collectives) {
        if (c.startUs >= m.startUs && c.startUs < m.endUs) {
            ++m.collectives;
            if (c.bytes) {
                bytes += *c.bytes;
            } else {
                allSized = false;
            }
        }
    }
    if (allSized) {
        m.commBytes = bytes;
    }
}

} // namespace

std::vector<StepWindow> stepWindows(const Trace& trace, bool* marked) {
    // Each interned name's ProfilerStep number, decided once per distinct name.
    std::vector<std::optional<int>> stepOfName(trace.strings.size());
    for (std::uint32_t id = 0; id < stepOfName.size(); ++id) {
        stepOfName[id] = profilerStepNumber(trace.strings.at(id));
    }
    std::map<int, Span> windows;
    for (const auto& e : trace.events) {
        if (const auto n = stepOfName[e.name]) {
            auto [it, fresh] = windows.try_emplace(*n, Span{e.startUs, e.endUs});
            if (!fresh) {
                it->second.start = std::min(it->second.start, e.startUs);
                it->second.end = std::max(it->second.end, e.endUs);
            }
        }
    }
    if (marked) {
        *marked = !windows.empty();
    }
    if (windows.empty() && !trace.events.empty()) {
        windows[0] = {std::ranges::min(trace.events, {}, &TraceEvent::startUs).startUs,
                      std::ranges::max(trace.events, {}, &TraceEvent::endUs).endUs};
    }
    return spec::mapped<std::vector<StepWindow>>(windows, [](const auto& w) {
        return StepWindow{w.first, w.second};
    });
}

ClassSpans classSpans(const Trace& trace) {
    std::array<std::vector<Span>, std::size_t(EventClass::Memory) + 1> spans; // by EventClass
    for (const auto& e : trace.events) {
        if (e.cls != EventClass::NotCounted) {
            spans[std::size_t(e.cls)].push_back({e.startUs, e.endUs});
        }
    }
    const auto of = [&spans](EventClass cls) {
        return SpanSet::unionOf(std::move(spans[std::size_t(cls)]));
    };
    ClassSpans out{of(EventClass::Compute), of(EventClass::Communication),
                   of(EventClass::Bookkeeping), of(EventClass::Memory)};
    if (trace.regime == Regime::Host) {
        out.compute = out.compute.subtract(out.bookkeeping);
    }
    return out;
}

StepMetrics measureWindow(const ClassSpans& spans, const StepWindow& w) {
    StepMetrics m;
    m.step = w.step;
    m.startUs = w.window.start;
    m.endUs = w.window.end;
    m.stepUs = w.window.length();
    m.computeUs = spans.compute.lengthWithin(w.window);
    m.commUs = spans.communication.lengthWithin(w.window);
    m.bookkeepingUs = spans.bookkeeping.lengthWithin(w.window);
    m.memoryUs = spans.memory.lengthWithin(w.window);
    m.overlapUs =
        spans.compute.clip(w.window).intersect(spans.communication.clip(w.window)).length();
    finishRatios(m);
    return m;
}

TraceSummary summarize(const Trace& trace, std::optional<Span> window) {
    TraceSummary s;
    s.regime = trace.regime;
    s.warnings = trace.warnings;
    s.window = window;
    const ClassSpans spans = classSpans(trace);
    for (auto w : stepWindows(trace, &s.stepsMarked)) {
        if (window) {
            w.window.start = std::max(w.window.start, window->start);
            w.window.end = std::min(w.window.end, window->end);
            if (!(w.window.end > w.window.start)) {
                continue;
            }
        }
        s.steps.push_back(measureWindow(spans, w));
        countCollectives(trace, s.steps.back());
    }
    StepMetrics& t = s.totals;
    t.step = -1;
    t.commBytes = 0.0;
    for (const auto& m : s.steps) {
        t.stepUs += m.stepUs;
        t.computeUs += m.computeUs;
        t.commUs += m.commUs;
        t.bookkeepingUs += m.bookkeepingUs;
        t.memoryUs += m.memoryUs;
        t.overlapUs += m.overlapUs;
        t.collectives += m.collectives;
        if (t.commBytes && m.commBytes) {
            *t.commBytes += *m.commBytes;
        } else {
            t.commBytes.reset();
        }
    }
    if (!s.steps.empty()) {
        t.startUs = s.steps.front().startUs;
        t.endUs = s.steps.back().endUs;
    }
    finishRatios(t);
    if (window) {
        s.windowFigures = measureWindow(spans, StepWindow{-1, *window});
        countCollectives(trace, *s.windowFigures);
    }
    if (trace.events.empty()) {
        s.warnings.push_back("the trace holds no duration events");
    } else if (s.steps.empty() && window) {
        s.warnings.push_back("no step overlaps the window");
    }
    return s;
}

} // namespace commprof::trace
