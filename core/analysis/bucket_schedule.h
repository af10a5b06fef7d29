// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// DDP's bucket schedule for a cap, simulated: the parameters in gradient-ready order are put into
// buckets by the reducer's rule, each bucket's all-reduce starts once the bucket is ready and
// the one before it is done, and costs alpha + beta x the bytes the hook puts on the wire.

#include <QString>

#include <optional>
#include <vector>

namespace commprof::analysis {

struct ReadyParam {
    double bytes = 0;
    double readyUs = 0; // its gradient is ready, from the backward's start
};

// torch's compute_bucket_assignment_by_size as Reducer::rebuild_buckets calls it (limits
// {first_bucket_bytes_cap, bucket_bytes_cap}, the parameters in ready order): a bucket closes as
// soon as its bytes reach its limit; the first bucket's limit is the first cap, every later one's
// the cap; what is left at the end is a last, smaller bucket.
struct BucketRule {
    double firstCapBytes = 1024.0 * 1024.0;
    double capBytes = 25.0 * 1024.0 * 1024.0;
};

// Parameter indices (into the ready-ordered list) per bucket, in launch order.
std::vector<std::vector<int>> assignBuckets(const std::vector<double>& bytesInReadyOrder,
                                            const BucketRule& rule);

// The bytes a comm hook puts on the wire per gradient byte: 1 for allreduce, 0.5 for the fp16
// and bf16 compressions; nullopt (with *why) for a hook this model does not describe.
std::optional<double> wireFactor(const QString& hook, QString* why = nullptr);

struct WireCost {
    double alphaUs = 0;
    double betaUsPerByte = 0;
    double factor = 1; // wireFactor of the hook
    double us(double gradientBytes) const {
        return alphaUs + betaUsPerByte * gradientBytes * factor;
    }
};

struct ScheduledBucket {
    int nparams = 0;
    double bytes = 0;   // gradient bytes
    double readyUs = 0; // its last gradient is ready (and every earlier bucket launched)
    double startUs = 0, endUs = 0;
};

struct Schedule {
    std::vector<ScheduledBucket> buckets;
    double computeEndUs = 0; // the backward's compute ends
    double commEndUs = 0;    // the last all-reduce ends
    // Communication the backward waits for after its compute: commEnd - computeEnd, or 0.
    double exposedUs() const { return commEndUs > computeEndUs ? commEndUs - computeEndUs : 0.0; }
};

// `computeEndUs` below the last gradient's ready time is raised to it.
Schedule simulateSchedule(const std::vector<ReadyParam>& readyOrder, const BucketRule& rule,
                          const WireCost& cost, double computeEndUs);

} // namespace commprof::analysis
