// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The DDP step model: values in, values out, no files read. Given when each gradient is ready
// (a StepProfile, from whichever source has it: a cell's rank files, ready_times.h; a trace,
// trace_ready_times.h), DDP's bucket rule, a comm hook and what a collective costs, it predicts
// the step and the communication the backward waits for:
//
//   step = forward + backward compute + exposed communication + optimizer
//
// where the buckets are launched in order as their last gradient is ready, and exposed is what
// the last bucket's collective runs past the backward's compute (bucket_schedule.h).
//
// Concurrency, per backend (collectiveConcurrency): the model runs a process group's bucket
// collectives one at a time. NCCL runs a process group's collectives on one stream, in order, so
// that is what it does. gloo can run two at once (ProcessGroupGloo's worker threads; the rank
// asks for 2), but two concurrent all-reduces share one link and, on a CPU host, the cores the
// backward computes on: what a second one gains in latency it loses in bandwidth. A trace's
// collectives are priced at their share of the link (trace_ready_times.cpp, linkShares), a
// cell's with the rest in the calibrated scale (recommendation.h), measured on the same host. One
// at a time is therefore the assumption for gloo too, and the model says so rather than
// pretending to overlap.

#include "analysis/bucket_schedule.h"
#include "analysis/collective_cost.h"

#include <QString>

#include <vector>

namespace commprof::analysis {

// What the model knows of one step, in microseconds: medians over the iterations and ranks it
// was taken from (a trace gives one per traced step: trace_ready_times.h).
struct StepProfile {
    QString source;                 // where the times come from (a cell id, a trace)
    std::vector<ReadyParam> params; // in gradient-ready order, times from the backward's start
    double forwardUs = 0;
    double computeEndUs = 0; // the backward's compute ends (its last gradient is ready)
    double optimizerUs = 0;
    // After the last collective and the backward's compute, before the optimizer: DDP's finalize
    // (on a trace, the buckets copied back into the gradients), the same at every cap. A cell's
    // rank files time none.
    double finalizeUs = 0;
    // What the backward waited for after its compute (measured; what calibrates the cost).
    double exposedUs = 0;
    int samples = 0; // rank-iterations the medians are over
};

struct BackendConcurrency {
    const char* backend;
    const char* why; // the model runs one collective at a time on every backend: why
};
// The model's assumption for `backend` (gloo, nccl; anything else as nccl).
const BackendConcurrency& collectiveConcurrency(const QString& backend);

struct StepPrediction {
    Schedule schedule;
    double stepUs = 0;
    double exposedUs = 0;
    int buckets() const { return int(schedule.buckets.size()); }
};

// The profile's step under `rule`, `hook` and `cost`.
StepPrediction predictStep(const StepProfile& profile, const BucketRule& rule,
                           const HookModel& hook, const CollectiveCost& cost);

// The profile with its ready times stretched so that its compute ends at `computeEndUs`.
StepProfile stretchedTo(const StepProfile& profile, double computeEndUs);

// The scale of `cost` at which the profile's simulated schedule exposes what the profile
// measured (exposure grows with the scale, so bisection finds it); 1 for a hook that sends
// nothing.
double calibratedScale(const StepProfile& profile, const BucketRule& rule, const HookModel& hook,
                       CollectiveCost cost);

} // namespace commprof::analysis
