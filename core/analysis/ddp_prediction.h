// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The sweep against DDP: each bucket's all-reduce predicted from the all_reduce sweep of the
// same layer and world size, against what the bucket's collective took once every rank had
// arrived.
//
// Like for like: the sweep times a collective that all ranks enter together (a barrier before
// each repetition), so the measured side is the collective's own time, the backend span of the
// rank that arrived last (the others' spans also hold their wait for it, reported apart as the
// arrival wait). The prediction is the sweep's typical (median) time at the bucket's size,
// interpolated between the sizes measured, since a step's figure is a median too; the fit's
// line (the sweep's fastest repetitions) is reported beside it as the best case.
//
// Gloo's collectives are CPU work, and the sweep had the host's cores to itself; in DDP a
// bucket that is reduced while the backward pass still runs shares them. Where the traces are in
// the host regime and the host's CPU count is known, the prediction divides the sweep's time by
// the CPU share the collective had: cores / runnable threads, counting on every rank one thread
// for the collective and its intra-op threads for the fraction of the collective's own time that
// the rank's compute ran (processor sharing; capped at 1).

#include "analysis/cell_metrics.h"
#include "analysis/collective_sweep.h"

#include <QString>

#include <optional>
#include <vector>

namespace commprof::analysis {

struct BucketPrediction {
    int index = 0;
    double bytes = 0;
    double sweepUs = 0;          // the sweep's typical time at this size
    double cpuShare = 1;         // median over steps of the share of the cores it had
    double predictedUs = 0;      // sweepUs / cpuShare
    std::optional<double> fitUs; // alpha + bytes * beta, where the fit was made
    double measuredUs = 0;       // median over steps of the collective's own time
    double waitUs = 0;   // median over steps of the first rank's wait for the last to arrive
    double queuedUs = 0; // median over rank-steps of the hook's launch to the backend's start
    int samples = 0;     // steps
    // The sweep's time (alone on the cores) over DDP's at this size: the fraction of the
    // sweep's bandwidth DDP reached.
    double sweepFraction() const { return measuredUs > 0 ? sweepUs / measuredUs : 0.0; }
};

struct DdpPrediction {
    int steps = 0;                 // traced steps with every bucket's span on every rank
    int hostCpus = 0;              // the cores shared; 0: unknown, no sharing applied
    double sweepUsPerStep = 0;     // the step's buckets' sweep times, summed (no sharing)
    double predictedUsPerStep = 0; // the step's buckets' predictions, summed
    std::optional<double> fitUsPerStep;
    double measuredUsPerStep = 0;                // median over steps of the summed own times
    double measuredMinUs = 0, measuredMaxUs = 0; // their range over the steps
    double waitUsPerStep = 0;                    // median over steps of the summed arrival waits
    double queuedUsPerStep = 0;                  // median over rank-steps of the summed queueing
    double backendUsPerStep = 0; // median over rank-steps of the summed backend spans (waits in)
    std::vector<BucketPrediction> buckets; // by bucket index
    bool withinRange() const {
        return predictedUsPerStep >= measuredMinUs && predictedUsPerStep <= measuredMaxUs;
    }
    // predicted / measured - 1: how far off the prediction is.
    double offBy() const {
        return measuredUsPerStep > 0 ? predictedUsPerStep / measuredUsPerStep - 1.0 : 0.0;
    }
};

// `allReduce`: the sweep's all_reduce points at the cell's layer and world size; `fit` their
// line (refused fits give no fitUs); `hostCpus` the cores of the host the ranks shared (0:
// unknown). nullopt with *why set at world size 1 (nothing moves), when
// there are no points, or when no step has every bucket's backend span on every rank.
// Why the sweep cannot predict a cell of this comm hook, or empty where it can: the sweep times
// float32 all-reduces of a bucket's bytes, which only the allreduce hook sends ("timing" is what
// files from before the hooks call it; "default" is DDP's own all-reduce).
QString notPredictedForHook(const QString& hook);

std::optional<DdpPrediction> predictDdp(const std::vector<RankFigures>& ranks,
                                        const std::vector<SweepPoint>& allReduce,
                                        const LinearFit& fit, int hostCpus, QString* why = nullptr);

} // namespace commprof::analysis
