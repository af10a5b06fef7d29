// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The spans one rank's trace holds of a DDP backward, picked out by name and sorted once, so
// ddp_steps.cpp reads each iteration from short lists rather than the whole trace (the
// span names and why each matters are in ddp_steps.h).

#include "collectives.h"
#include "trace_event.h"

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

namespace commprof::trace {

// Which of DDP's launch spans a launch was read from (ddp_backward_spans.cpp lists them).
enum class LaunchKind : std::uint8_t {
    None,
    BucketSpan, // commprof-rank's comm_hook span: launch to completion
    C10d,       // c10d::allreduce_ (Python DDP through ProcessGroup)
    ParamComms, // record_param_comms of an all-reduce (PyTorch 2.x)
    Host,       // nccl:all_reduce on the host
};

struct Launch {
    LaunchKind kind = LaunchKind::None;
    double startUs = 0, endUs = 0;
    // A c10d::allreduce_ recorded with record_shapes: its bucket's elements ("Input Dims").
    std::optional<std::int64_t> elements;
};

struct BackwardSpans {
    std::vector<const TraceEvent*> evaluate;   // evaluate_function spans, by start
    std::vector<const TraceEvent*> accumulate; // AccumulateGrad spans, by end (ready order)
    std::vector<const TraceEvent*> copyBack;   // copy_bucket_to_grad spans, in trace order
    std::vector<Launch> launches; // of the one launch kind the buckets are read from, by start
    std::vector<const CollectiveRecord*> executions; // the all_reduces that ran, in trace order
    // record_shapes' first input per event, for the ops that have one kept (trace_event.h).
    std::unordered_map<std::uint32_t, const ShapeArgs*> shapeOf;
};

// Throws TraceError naming the trace when it holds no AccumulateGrad span.
BackwardSpans backwardSpans(const Trace& trace);

// Bytes per element of the gradient an AccumulateGrad span takes, from its record_shapes
// "Input type"; 0 where the trace does not say or the type is not a gradient's.
int gradientElementBytes(const BackwardSpans& spans, const Trace& trace,
                         const TraceEvent& accumulate);

} // namespace commprof::trace
