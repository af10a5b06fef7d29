// SPDX-License-Identifier: GPL-3.0-or-later
#include "hooks/compress_hook.h"

namespace commprof::rank {

FuturePtr CompressHook::run(c10d::GradBucket& bucket, std::int64_t& wireBytes) {
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

} // namespace commprof::rank
