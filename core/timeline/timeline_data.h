#pragma once
// What the trace timeline draws, built once off the GUI thread: the class lanes (union spans
// of compute, communication and bookkeeping, as the metrics use them), one lane of raw events
// per thread or stream, and the step windows.

#include "trace/step_metrics.h"
#include "trace/trace_event.h"

#include <QString>

#include <vector>

namespace commprof::timeline {

struct Lane {
    QString title;
    bool classLane = false; // a union lane (no individual events)
    trace::EventClass cls = trace::EventClass::NotCounted;
    std::vector<trace::Span> spans;    // sorted by start
    std::vector<std::uint32_t> events; // per span: index into the trace's events (raw lanes only)
    std::vector<double> maxEndPrefix;  // running maximum of span ends, for range queries
    // Index of the first span that can overlap [t, ...).
    std::size_t firstOverlapping(double t) const;
    double lengthWithin(trace::Span window) const; // for union lanes
};

struct TimelineData {
    trace::Trace trace;
    std::vector<Lane> lanes;
    std::vector<trace::StepWindow> steps;
    double startUs = 0;
    double endUs = 0;
};

TimelineData buildTimeline(trace::Trace trace);

} // namespace commprof::timeline
