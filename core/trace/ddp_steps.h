// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A DDP job's steps as one rank's trace shows them (the importer half of the DDP step graph;
// analysis/ddp_step_graph.h joins the ranks): per profiled iteration its phases, each gradient's
// ready time and each bucket's collective. Read from the events any torch.profiler export and
// commprof-rank write alike:
//
//   - an iteration: a ProfilerStep#N span (none marked: the whole trace is one, and it is said);
//   - the backward: from the first `autograd::engine::evaluate_function: ...` span of the
//     iteration; before it, the forward (and whatever the script did before it);
//   - a gradient's ready time: the end of the inner `torch::autograd::AccumulateGrad` span (the
//     outer evaluate_function span also holds DDP's post-hook, which may launch a bucket);
//   - a bucket's collective: its launch (`c10d::allreduce_`, `record_param_comms`, nccl:/gloo:
//     host spans, or commprof-rank's `c10d::allreduce_bucket#I`) matched in order with the
//     all_reduce the trace's collective records (collectives.h) hold, its execution; it carries
//     the gradients ready since the previous launch, up to its own;
//   - the end of the backward: the last of its evaluate_function spans, its collectives and
//     DDP's copies back into the gradients; after it, the optimizer (and the rest of the step).

#include "intervals.h"
#include "trace_event.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace commprof::trace {

struct BucketCollective {
    double launchUs = 0;           // the reducer launched it
    std::optional<double> startUs; // its execution, where the trace shows one
    std::optional<double> endUs;
    std::optional<std::int64_t> elements;
    std::optional<double> bytes;
    std::optional<std::int64_t> seq;
    int firstGradient = 0; // the gradients it carries: [first, first + gradients) in ready order
    int gradients = 0;
};

struct DdpIteration {
    int step = 0;
    Span window;
    double backwardStartUs = 0;
    double computeEndUs = 0;  // the last gradient is ready
    double backwardEndUs = 0; // its last collective, evaluate_function or copy back has ended
    std::vector<double> gradientReadyUs; // in ready order
    std::vector<BucketCollective> buckets;
    double forwardUs() const { return backwardStartUs - window.start; }
    double backwardComputeUs() const { return computeEndUs - backwardStartUs; }
    double afterComputeUs() const { return backwardEndUs - computeEndUs; }
    double afterBackwardUs() const { return window.end - backwardEndUs; }
    double stepUs() const { return window.length(); }
};

struct DdpRankSteps {
    std::string source;
    std::optional<int> rank;
    std::optional<int> worldSize; // distributedInfo's, where the trace has one
    std::string backend;
    bool stepsMarked = false;
    bool sized = false;    // every bucket's elements are known
    bool legacy = false;   // a bare JSON list: the legacy (non-Kineto) export
    bool onDevice = false; // its collectives ran on a GPU (kernels in the trace)
    // Not DDP's reducer at work: every all_reduce launched after the backward's last gradient
    // (gradients reduced by hand, a hook-less job), or one all_reduce per gradient (a compiled
    // job's, or one that reduces each gradient itself). The cap does not shape either.
    bool reducedAfterBackward = false;
    bool reducedPerGradient = false;
    std::vector<DdpIteration> iterations;
    std::vector<std::string> notes; // what the trace lacks and what follows from it
    // The reader's warnings on the file (a cut, dropped events, absurd values): they travel
    // with the steps so every output of the job shows them (analysis/ddp_job.h).
    std::vector<std::string> warnings;
    bool readInPart = false; // the file was cut or broken: iterations after the cut are missing
};

// Throws TraceError naming the trace when it holds no DDP backward (no AccumulateGrad, or no
// all_reduce launched in any iteration), when its distributedInfo rank lies outside its world
// size, or when its marked steps overlap.
DdpRankSteps ddpSteps(const Trace& trace);

} // namespace commprof::trace
