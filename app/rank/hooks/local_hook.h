// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// --hook local: no communication at all, the bucket only divided by the world size. The
// compute-only baseline: what a step costs when gradients are never exchanged (the ranks'
// models drift apart, which is the point of a baseline, not a training run).

#include "hooks/bucket_algorithm.h"

namespace commprof::rank {

class LocalHook : public BucketAlgorithm {
public:
    explicit LocalHook(int worldSize) : worldSize_(worldSize) {}
    FuturePtr run(c10d::GradBucket& bucket, std::int64_t& wireBytes) override {
        at::Tensor buffer = bucket.getBufferRef();
        buffer.div_(worldSize_);
        wireBytes = 0;
        auto done = tensorFuture(buffer.device());
        done->markCompleted(buffer);
        return done;
    }

private:
    int worldSize_;
};

} // namespace commprof::rank
