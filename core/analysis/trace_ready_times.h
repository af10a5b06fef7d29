// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The step model's input (step_model.h) from a DDP job's traces: the second of its ready-time
// sources (ready_times.h reads a cell's rank files). Each gradient's ready time is read from the
// trace (the end of its AccumulateGrad), relative to the backward's start, one profile per
// traced step: the replay replays each and takes their median, as the recording's median step is
// taken over whole steps (the median of each part apart would not add up to it). Its bytes come
// from --params (registration order reversed: the order the reducer's rebuilt buckets hold them in)
// or, without it, from the collectives' element counts, each bucket's bytes shared evenly among the
// gradients it carried.
//
// With several ranks, every iteration is taken as the job ran it: a bucket's collective ends at
// about the same instant on every rank, so the ranks' clocks are aligned by their collectives'
// ends (legacy traces count from each process's own start), and each gradient is ready when the
// last rank has it ready: the slowest rank's backward paces the job.

#include "analysis/ddp_params.h"
#include "analysis/step_model.h"
#include "trace/ddp_steps.h"

#include <optional>
#include <vector>

namespace commprof::analysis {

struct TraceProfile {
    // Each traced step's own profile (one sample each), in step order; never empty.
    std::vector<StepProfile> steps;
    // The recorded buckets: gradient indices (ready order) per bucket, as the first iteration
    // read carried them, and their bytes.
    std::vector<std::vector<int>> layout;
    std::vector<double> bucketBytes;
    bool bytesFromParams = false;
    std::vector<double> stepsUs; // every rank's every iteration
    // Each bucket's collective as the job ran it: its bytes and its share of the link, the time
    // from when it could run to its end with what it ran beside others split among them.
    std::vector<std::pair<double, double>> costSamples;
    bool acrossRanks = false; // the ranks' clocks aligned by their collectives' ends
};

// nullopt with *why when the traces cannot give one (gradient counts that differ between
// iterations, no sizes and no params, params that do not match the gradients).
std::optional<TraceProfile> profileFromTraces(const std::vector<const trace::DdpRankSteps*>& traces,
                                              const DdpParams* params, QString* why);

} // namespace commprof::analysis
