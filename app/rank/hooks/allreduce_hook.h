// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// --hook allreduce (alias timing): what DDP's default hook does, divide by the world size and
// all-reduce the bucket, with the determinism fingerprints around the collective.

#include "hooks/bucket_algorithm.h"

namespace commprof::rank {

class AllreduceHook : public BucketAlgorithm {
public:
    explicit AllreduceHook(ProcessGroupPtr pg) : pg_(std::move(pg)) {}
    void prepare(c10d::GradBucket& bucket) override;
    FuturePtr run(c10d::GradBucket& bucket, std::int64_t& wireBytes) override;

private:
    ProcessGroupPtr pg_;
};

} // namespace commprof::rank
