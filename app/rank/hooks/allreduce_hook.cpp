// SPDX-License-Identifier: GPL-3.0-or-later
#include "hooks/allreduce_hook.h"

#include "fingerprint.h"

namespace commprof::rank {

void AllreduceHook::prepare(c10d::GradBucket& bucket) {
    Fingerprinter& fp = Fingerprinter::instance();
    if (fp.captureSemantic()) {
        fp.record("ddp::grads_before_reduce#" + std::to_string(bucket.getIndex()),
                  bucket.getGradients());
    }
    // Divide first, as DDP's default hook does, so the sum cannot overflow in low precision.
    bucket.getBufferRef().div_(pg_->getSize());
}

FuturePtr AllreduceHook::run(c10d::GradBucket& bucket, std::int64_t& wireBytes) {
    std::vector<at::Tensor> tensors{bucket.getBufferRef()};
    const at::Tensor buffer = tensors[0];
    wireBytes = buffer.numel() * std::int64_t(buffer.element_size());
    Fingerprinter& fp = Fingerprinter::instance();
    if (!fp.enabled()) {
        return pg_->allreduce(tensors)->getFuture();
    }
    // Fingerprinting: the collective's input is digested at launch, its output at completion.
    const std::string name = "ddp::allreduce_bucket#" + std::to_string(bucket.getIndex());
    const bool collective = fp.captureCollectives();
    const std::string inputDigest = collective ? fp.tensorsJson(tensors) : std::string();
    fp.collectiveStarted(buffer.storage().data());
    auto future = pg_->allreduce(tensors)->getFuture();
    return future->then(
        [buffer, name, inputDigest, collective](c10::ivalue::Future& done) {
            Fingerprinter& f = Fingerprinter::instance();
            f.collectiveFinished(buffer.storage().data());
            if (collective) {
                f.writeRecord(name, "semantic", inputDigest, f.tensorsJson({buffer}), true,
                              nullptr);
            }
            return done.value();
        },
        future->elementType());
}

} // namespace commprof::rank
