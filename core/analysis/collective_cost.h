// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What one collective costs: the one cost type every model of commprof prices a collective with
// (the sweep's fit, the report's fit over bucket timings, a DDP bucket in the step model).
//
// A cost is measured at one world size: alpha per collective and beta per byte of the message,
// as a sweep or a trace times them there. At another world size or over another link it follows
// the collective's algorithm. The algorithm assumed is the ring all-reduce: each rank sends and
// receives 2 (N - 1) / N of the message in 2 (N - 1) latency steps. It is what gloo's
// allreduce_ring (its default for the sizes DDP sends) and NCCL's ring both run; NCCL's tree,
// chosen at large world sizes for small messages, has fewer latency steps, so the ring is the
// pessimistic side for latency and exact for bandwidth. A bandwidth factor K divides the
// bandwidth term (K = 2: a link twice as fast); the latency term is the link's and the
// software's and stays.
//
// Contention between a collective and the job's compute has one model here, read in two
// directions that are not the same quantity, so they stay apart:
//   - `scale`: the collective runs slower inside the job than alone (the cores it shares with
//     the backward, a hook's work, a second collective in flight), as one factor over the
//     measured cost. `recommend` calibrates it per cell so that the simulated schedule exposes
//     what the cell measured (step_model.h's calibratedScale, the sweep's cost its base);
//     `trace whatif` needs none, its cost being fitted to the collectives timed inside the job
//     (the slowdown is in its alpha and beta), and with --sweep it folds the same factor into
//     the sweep's line (the trace's collectives over what the line prices them at: whatif.cpp's
//     fromSweep).
//   - `contention`: the backward's compute runs slower beside a collective: the share of the
//     collective's time the backward loses (contention.h reads it from a trace). It moves the
//     gradients' ready times, which `scale` cannot: a collective that takes longer does not
//     delay the compute, and compute that takes longer does not slow the wire.
//   - `coresShare`: what part of a collective is the cores' work at all, the part a hook's
//     dearer sums multiply and a faster link does not shorten (computeContention).
// ddp_prediction.h's cpuShare is none of these: it explains after the fact how far a measured
// cell's bucket fell short of the sweep (cores over runnable threads, processor sharing) and
// predicts no other setting, so no model of a scenario reads it.

#include <algorithm>

namespace commprof::analysis {

// The ring all-reduce over `worldSize` ranks.
struct RingAllReduce {
    static double latencySteps(int worldSize) { return 2.0 * (worldSize - 1); }
    // The share of the message each rank sends (and receives).
    static double byteShare(int worldSize) { return 2.0 * (worldSize - 1) / double(worldSize); }
};

struct CollectiveCost {
    double alphaUs = 0;       // per collective, at worldSize
    double betaUsPerByte = 0; // per byte of the message, at worldSize
    int worldSize = 2;        // the world size alpha and beta were measured at
    // How much slower than measured the collectives run where they are used (a DDP bucket's
    // beside the backward and the hook's own work: recommendation.h calibrates it).
    double scale = 1;
    // The host's cores' share of a collective's time on the measured link: 0 where it runs
    // elsewhere (a GPU's copy engines and NCCL's kernels), 1 where all of it is copies and sums
    // on the cores (gloo with no slower link holding it back). A hook whose sums are dearer
    // (gloo's float16) multiplies that part (bucket_schedule.cpp).
    double coresShare = 0;
    // The share of a collective's time the backward loses beside it, on the measured link (the
    // job's trace, or a calibration of the machine, measures it: contention.h).
    double contention = 0;
    double bandwidthX = 1; // the bandwidth factor at() applied to beta, over the measured link

    // The same collective at another world size and bandwidth, through the ring; at the measured
    // world size and K = 1 exactly this cost.
    CollectiveCost at(int toWorldSize, double bandwidthX = 1) const {
        CollectiveCost c = *this;
        c.worldSize = toWorldSize;
        if (toWorldSize != worldSize) {
            c.alphaUs = alphaUs * RingAllReduce::latencySteps(toWorldSize) /
                        RingAllReduce::latencySteps(worldSize);
            c.betaUsPerByte = betaUsPerByte * RingAllReduce::byteShare(toWorldSize) /
                              RingAllReduce::byteShare(worldSize);
        }
        if (bandwidthX != 1) {
            c.betaUsPerByte /= bandwidthX;
            c.bandwidthX *= bandwidthX;
        }
        return c;
    }
    // `collectives` collectives carrying `bytes` in all. Never below 0: a fit with a negative
    // intercept prices no collective below nothing; nothing sent costs nothing.
    double us(int collectives, double bytes) const {
        return collectives == 0
                   ? 0.0
                   : std::max(0.0, scale * (alphaUs * collectives + betaUsPerByte * bytes));
    }
    // The share of a collective's time the backward loses beside it: the cores' work is what it
    // was, the rest waits on the wire (shorter over a faster link, taking nothing from the
    // backward), so the time lost stays and its share of the collective grows (or shrinks, over
    // a slower link) by the measured collective's time over this one's, up to all of it. Per
    // collective: a faster link shortens only the per-byte part, not the latency.
    double computeContention(int collectives, double bytes) const {
        // this collective's time over the measured one's (bucket_schedule.cpp's, for a hook
        // with no dearer sums)
        const double measured = usOnMeasuredLink(collectives, bytes);
        const double ratio = std::max(
            measured > 0 ? us(collectives, bytes) / measured : 1.0 / bandwidthX, coresShare);
        return ratio > 0 ? std::min(1.0, contention / ratio) : 1.0;
    }
    // As us(), over the link it was measured on (the bandwidth factor undone).
    double usOnMeasuredLink(int collectives, double bytes) const {
        CollectiveCost c = *this;
        c.betaUsPerByte *= bandwidthX;
        return c.us(collectives, bytes);
    }
    // One collective of `bytes`, as fitted: alpha + beta x bytes (may be below 0, unclamped, for
    // a fit's residuals).
    double fittedUs(double bytes) const { return alphaUs + bytes * betaUsPerByte; }
};

// alpha per ring step and beta per byte each rank sends: the form fitted across world sizes
// (cost_model.h's fitAlphaBeta), as one collective's cost at `worldSize`.
inline CollectiveCost ringCost(double alphaPerStepUs, double betaPerSentByteUs, int worldSize) {
    return {RingAllReduce::latencySteps(worldSize) * alphaPerStepUs,
            RingAllReduce::byteShare(worldSize) * betaPerSentByteUs, worldSize, 1};
}

} // namespace commprof::analysis
