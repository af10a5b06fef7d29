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
    FuturePtr run(c10d::GradBucket& bucket, std::int64_t& wireBytes) override {
        at::Tensor buffer = bucket.getBufferRef();
        // Cast, then divide in the narrow type, in Python's order: the same two roundings.
        std::vector<at::Tensor> compressed{buffer.to(wireType_).div_(pg_->getSize())};
        wireBytes = compressed[0].numel() * std::int64_t(compressed[0].element_size());
        auto future = pg_->allreduce(compressed)->getFuture();
        return future->then(
            [buffer](c10::ivalue::Future& done) -> c10::IValue {
                // In place, as Python does, so the peak memory stays one bucket.
                buffer.copy_(done.value().toTensorVector()[0]);
                return buffer;
            },
            c10::TensorType::get());
    }

private:
    ProcessGroupPtr pg_;
    at::ScalarType wireType_;
};

} // namespace commprof::rank
