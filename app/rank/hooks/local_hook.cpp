// SPDX-License-Identifier: GPL-3.0-or-later
#include "hooks/local_hook.h"

namespace commprof::rank {

FuturePtr LocalHook::run(c10d::GradBucket& bucket, std::int64_t& wireBytes) {
    at::Tensor buffer = bucket.getBufferRef();
    buffer.div_(worldSize_);
    wireBytes = 0;
    return completedFuture(buffer);
}

} // namespace commprof::rank
