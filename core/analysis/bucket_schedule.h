// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// DDP's bucket schedule for a cap, simulated: the parameters in gradient-ready order are put into
// buckets by the reducer's rule, each bucket's all-reduce starts once the bucket is ready and
// the one before it is done, and costs what collective_cost.h prices the collectives the hook
// sends at. One at a time: step_model.h says why, per backend.

#include "analysis/collective_cost.h"
#include "analysis/hook_work.h"
#include "spec/comm_hooks.h"

#include <QString>

#include <algorithm>
#include <optional>
#include <vector>

namespace commprof::analysis {

struct ReadyParam {
    double bytes = 0;
    double readyUs = 0;        // its gradient is ready, from the backward's start
    std::vector<double> shape; // the parameter's shape; empty: a flat tensor of `bytes`
};

// torch's compute_bucket_assignment_by_size as Reducer::rebuild_buckets calls it (limits
// {first_bucket_bytes_cap, bucket_bytes_cap}, the parameters in ready order): a bucket closes as
// soon as its bytes reach its limit; the first bucket's limit is the first cap, every later one's
// the cap; what is left at the end is a last, smaller bucket.
struct BucketRule {
    double firstCapBytes = 1024.0 * 1024.0;
    double capBytes = 25.0 * 1024.0 * 1024.0;
};

// The parameters' bytes in their order: what assignBuckets() takes.
std::vector<double> bytesOf(const std::vector<ReadyParam>& params);

// Parameter indices (into the ready-ordered list) per bucket, in launch order.
std::vector<std::vector<int>> assignBuckets(const std::vector<double>& bytesInReadyOrder,
                                            const BucketRule& rule);

// What a comm hook sends for one bucket: its collectives and their bytes in all.
struct BucketWire {
    int collectives = 0;
    double bytes = 0;
};

// How a comm hook turns a bucket's gradients into collectives, as the rank's hooks do:
// allreduce one all-reduce of the bucket; fp16_compress and bf16_compress one of half the bytes;
// powersgd, per tensor viewed as (size(0), rest), P (n x r) and Q (m x r) where (n + m) r x
// min_compression_rate < n m, else the tensor travels whole, in three all-reduces whatever they
// hold: the uncompressed tensors, every P, every Q; local none.
struct HookModel {
    QString hook = "allreduce";
    spec::HookWire sends = spec::HookWire::Gradient; // from the hook's row of spec::kCommHooks
    int powersgdRank = 1;
    double minCompressionRate = 2;
    HookWork work; // its casts and its collective's dtype; none unless a calibration says
    BucketWire wire(const std::vector<const ReadyParam*>& members) const;
};

// nullopt with *why for a hook this model does not describe.
std::optional<HookModel> hookModel(const QString& hook, int powersgdRank = 1,
                                   QString* why = nullptr);

struct ScheduledBucket {
    int nparams = 0;
    double bytes = 0;     // gradient bytes
    double wireBytes = 0; // what its hook sends
    double readyUs = 0;   // its last gradient is ready (and every earlier bucket launched)
    double preUs = 0;     // the hook's work before its collective, on the backward's thread
    double startUs = 0, endUs = 0;
};

struct Schedule {
    std::vector<ScheduledBucket> buckets;
    double computeEndUs = 0; // the backward's compute ends
    double commEndUs = 0;    // the last all-reduce ends
    // Communication the backward waits for after its compute: commEnd - computeEnd, or 0.
    double exposedUs() const { return commEndUs > computeEndUs ? commEndUs - computeEndUs : 0.0; }
};

// The schedule of buckets already assigned (parameter indices into readyOrder per bucket, in
// launch order): a recorded layout replayed as it was.
Schedule simulateLayout(const std::vector<ReadyParam>& readyOrder,
                        const std::vector<std::vector<int>>& layout, const HookModel& hook,
                        const CollectiveCost& cost, double computeEndUs);

// The inverse of simulateLayout for the ready times: gradients' times as a job recorded them
// under `layout`, `hook` and `cost` (every earlier bucket's casts, and the compute the
// collectives beside it took, in them) brought back to the backward's own compute, as
// simulateLayout takes them; `computeEndUs` (the last gradient's) likewise.
void removeScheduleEffects(std::vector<ReadyParam>* readyOrder, double* computeEndUs,
                           const std::vector<std::vector<int>>& layout, const HookModel& hook,
                           const CollectiveCost& cost);

// `computeEndUs` below the last gradient's ready time is raised to it.
Schedule simulateSchedule(const std::vector<ReadyParam>& readyOrder, const BucketRule& rule,
                          const HookModel& hook, const CollectiveCost& cost, double computeEndUs);

} // namespace commprof::analysis
