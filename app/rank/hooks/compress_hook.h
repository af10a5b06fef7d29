// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// --hook fp16_compress and bf16_compress: PyTorch's default_hooks.fp16_compress_hook and
// bf16_compress_hook. Cast the bucket to the narrow type, divide by the world size in that
// type, all-reduce, and copy the result back into the bucket.

#include "hooks/bucket_algorithm.h"

namespace commprof::rank {

class CompressHook : public BucketAlgorithm {
public:
    CompressHook(ProcessGroupPtr pg, at::ScalarType wireType)
        : pg_(std::move(pg)), wireType_(wireType) {}
    FuturePtr run(c10d::GradBucket& bucket, std::int64_t& wireBytes) override;

private:
    ProcessGroupPtr pg_;
    at::ScalarType wireType_;
};

} // namespace commprof::rank
