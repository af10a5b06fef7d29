// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Everything the timeline draws for one rank's trace, built once off the GUI thread: the class
// lanes (compute, communication, bookkeeping and memory as the metrics count them), then one
// group per process or device, named and ordered as the trace's `ph:"M"` metadata says, each
// with one lane per thread or stream and one row per call-stack depth.

#include "depth.h"
#include "flow_index.h"
#include "slice_row.h"
#include "trace/step_metrics.h"
#include "trace/trace_event.h"

#include <QString>

#include <optional>
#include <vector>

namespace commprof::timeline {

struct ThreadLane {
    std::int64_t pid = 0;
    std::int64_t tid = 0;
    QString title; // the trace's thread name ("stream 7", "thread 785244 (python3.8)")
    bool device = false;
    std::vector<SliceRow> rows; // by depth
};

struct ProcessGroup {
    std::int64_t pid = 0;
    QString title;  // "GPU 1 · python3.8", "CPU · python3.8", or "process 4711"
    QString detail; // "pid 1"
    bool device = false;
    std::vector<ThreadLane> lanes; // by thread_sort_index, then tid
};

struct ClassLane {
    trace::EventClass cls = trace::EventClass::NotCounted;
    QString title;
    SliceRow row; // union spans, no events
};

// Where an event is drawn.
struct SlicePlace {
    std::uint32_t group = 0;
    std::uint32_t lane = 0;
    std::uint32_t depth = 0;
};

struct RankTimeline {
    int rank = 0;
    QString path;
    trace::Trace trace;
    trace::TraceSummary summary;
    trace::ClassSpans classes;
    std::vector<trace::StepWindow> steps;
    std::vector<ClassLane> classLanes;
    std::vector<ProcessGroup> groups; // by process_sort_index, then pid
    std::vector<SlicePlace> places;   // per event of trace.events
    FlowIndex flows;
    double startUs = 0; // over all events, on the trace's own clock
    double endUs = 0;

    const SliceRow& rowOf(std::uint32_t event) const;
    // The event's position in its row; rowOf(event).size() if it is not drawn.
    std::size_t indexInRow(std::uint32_t event) const;
    double selfTimeUs(std::uint32_t event) const;
};

RankTimeline buildRankTimeline(trace::Trace trace, int rank, const QString& path);

} // namespace commprof::timeline
