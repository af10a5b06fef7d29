#include "bucket_timer.h"

#include "chrome_trace.h"
#include "fingerprint.h"

#include <chrono>
#include <thread>

#include <time.h>

namespace commprof::rank {

std::int64_t monotonicNs() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return std::int64_t(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

std::size_t BucketLog::launch(int index, std::int64_t bytes, std::int64_t nparams,
                              std::int64_t startNs) {
    std::lock_guard<std::mutex> lock(mutex_);
    records_.push_back({iteration_.load(), index, bytes, nparams, startNs, 0});
    return records_.size() - 1;
}

void BucketLog::complete(std::size_t slot) {
    const std::int64_t now = monotonicNs();
    std::lock_guard<std::mutex> lock(mutex_);
    records_[slot].endNs = now;
}

std::vector<BucketRecord> BucketLog::takeNew() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<BucketRecord> out;
    while (reported_ < records_.size() && records_[reported_].endNs != 0) {
        out.push_back(records_[reported_++]);
    }
    return out;
}

std::vector<BucketRecord> BucketLog::all() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return records_;
}

c10::intrusive_ptr<c10::ivalue::Future> TimingCommHook::runHook(c10d::GradBucket& bucket) {
    std::vector<at::Tensor> tensors{bucket.getBufferRef()};
    Fingerprinter& fp = Fingerprinter::instance();
    const bool capture = fp.captureSemantic();
    if (capture) {
        fp.record("ddp::grads_before_reduce#" + std::to_string(bucket.getIndex()), {},
                  bucket.getGradients());
    }
    // Divide first, as DDP's default hook does, so the sum cannot overflow in low precision.
    tensors[0].div_(pg_->getSize());
    const at::Tensor buffer = tensors[0];
    if (!fp.enabled()) {
        return timed([&] { return pg_->allreduce(tensors)->getFuture(); }, bucket, buffer);
    }
    // Fingerprinting: the collective's input is digested at launch, its output at completion.
    const std::string name = "ddp::allreduce_bucket#" + std::to_string(bucket.getIndex());
    const bool collective = fp.captureCollectives();
    const std::string inputDigest = collective ? fp.tensorsJson(tensors) : std::string();
    fp.collectiveStarted(buffer.storage().data());
    return timed(
        [&] {
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
        },
        bucket, buffer);
}

c10::intrusive_ptr<c10::ivalue::Future>
TimingCommHook::timed(const std::function<c10::intrusive_ptr<c10::ivalue::Future>()>& launch,
                      c10d::GradBucket& bucket, const at::Tensor& buffer) {
    if (!log_->recording()) {
        return launch();
    }
    const std::int64_t bytes = buffer.numel() * std::int64_t(buffer.element_size());
    const auto nparams = std::int64_t(bucket.getGradients().size());
    const int iteration = log_->iteration();
    const int index = int(bucket.getIndex());
    // One clock reading for the rank file's record and the trace's span.
    const std::int64_t start = monotonicNs();
    const std::size_t slot = log_->launch(index, bytes, nparams, start);
    auto future = launch();
    auto log = log_;
    const auto record = [log, slot, index, iteration, start] {
        log->complete(slot);
        ChromeTrace::instance().addSpan("c10d::allreduce_bucket#" + std::to_string(index),
                                        "comm_hook", start, monotonicNs(), iteration);
    };
    if (completionDelayMs_ > 0) {
        return delayedCompletion(future, record, completionDelayMs_);
    }
    // then(), not addCallback(): the Reducer waits on the returned future, and a plain
    // callback may still be running when waiters of the original future wake up.
    return future->then(
        [record](c10::ivalue::Future& done) {
            record();
            return done.value();
        },
        future->elementType());
}

// Test only (--hook-delay-ms). The backend's own span ends after the callbacks its future runs
// inline on the backend's thread, so sleeping there would delay both instruments alike. The
// delay runs on a thread of its own instead: the backend is done, and the hook (and the
// Reducer, which waits on the returned future) completes `delayMs` later.
c10::intrusive_ptr<c10::ivalue::Future>
TimingCommHook::delayedCompletion(const c10::intrusive_ptr<c10::ivalue::Future>& future,
                                  std::function<void()> record, double delayMs) {
    auto result = c10::make_intrusive<c10::ivalue::Future>(future->elementType());
    future->addCallback([result, record, delayMs](c10::ivalue::Future& done) {
        if (done.hasError()) {
            result->setError(done.exception_ptr());
            return;
        }
        std::thread([result, record, delayMs, value = done.value()] {
            std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(delayMs));
            record();
            result->markCompleted(value);
        }).detach();
    });
    return result;
}

at::Tensor TimingCommHook::parseHookResult(const c10::IValue& result) {
    if (result.isTensor()) {
        return result.toTensor();
    }
    return result.toTensorVector()[0];
}

} // namespace commprof::rank
