// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What a comm hook does to one gradient bucket. TimingCommHook (bucket_timer.h) times every
// algorithm the same way; an algorithm only reduces.

#include "c10d_compat.h"

#include <cstdint>

namespace commprof::rank {

using FuturePtr = c10::intrusive_ptr<c10::ivalue::Future>;

class BucketAlgorithm {
public:
    virtual ~BucketAlgorithm() = default;
    // Work done before the clock starts. Only the all-reduce hook has any (its divide by the
    // world size), so that its bucket times stay comparable with results recorded before the
    // other hooks existed; every other hook is timed from its first operation.
    virtual void prepare(c10d::GradBucket& bucket) {}
    // Reduces the bucket; the future completes with the averaged bucket (a tensor or a tensor
    // list). wireBytes: the bytes this rank hands to collectives for the bucket.
    virtual FuturePtr run(c10d::GradBucket& bucket, std::int64_t& wireBytes) = 0;
};

// A future for a tensor on `device`: a CUDA tensor needs a future that knows its device.
inline FuturePtr tensorFuture(const c10::Device& device) {
    std::vector<c10::Device> devices;
    if (!device.is_cpu()) {
        devices.push_back(device);
    }
    return c10::make_intrusive<c10::ivalue::Future>(c10::TensorType::get(), devices);
}

} // namespace commprof::rank
