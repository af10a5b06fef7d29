// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Everything the timeline draws for one rank's trace, built once off the GUI thread: the class
// lanes (compute, communication, bookkeeping and memory as the metrics count them), then one
// group per process or device, named and ordered as the trace's `ph:"M"` metadata says, each
// with one lane per thread or stream and one row per call-stack depth.

#include "slice_row.h"
#include "trace/step_metrics.h"
#include "trace/trace_event.h"

#include <QString>

#include <vector>

namespace commprof::timeline {

// Launch <-> device partners of a slice: the kernel or copy a runtime call started, or the
// call that started a kernel. Kineto links them twice: an `ac2g` flow (Trace::flows) and the
// shared `correlation` id of the runtime call and its device activity. Either is enough;
// both are followed, and a partner found both ways is listed once.
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

    // What the event spends outside its children: its duration minus the time covered by the
    // row below it within its span.
    double selfTimeUs(std::uint32_t event) const;
};

RankTimeline buildRankTimeline(trace::Trace trace, int rank, const QString& path);

} // namespace commprof::timeline
