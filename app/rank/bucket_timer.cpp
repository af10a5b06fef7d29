// SPDX-License-Identifier: GPL-3.0-or-later
#include "bucket_timer.h"

#include "chrome_trace.h"

#include <chrono>
#include <thread>

#include <time.h>

namespace commprof::rank {
namespace {

// Test only (--hook-delay-ms). The backend's own span ends after the callbacks its future runs
// inline on the backend's thread, so sleeping there would delay both instruments alike. The
// delay runs on a thread of its own instead: the backend is done, and the hook (and the
// Reducer, which waits on the returned future) completes `delayMs` later.
FuturePtr delayedCompletion(const FuturePtr& future, std::function<void()> record, double delayMs) {
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

} // namespace

std::int64_t monotonicNs() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return std::int64_t(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

std::size_t BucketLog::launch(int index, std::int64_t bytes, std::int64_t wireBytes,
                              std::int64_t nparams, std::int64_t startNs) {
    std::lock_guard<std::mutex> lock(mutex_);
    records_.push_back({iteration_.load(), index, bytes, wireBytes, nparams, startNs, 0});
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
    std::int64_t wireBytes = 0;
    algorithm_->prepare(bucket);
    if (!log_->recording()) {
        return algorithm_->run(bucket, wireBytes);
    }
    const at::Tensor& buffer = bucket.getBufferRef();
    const std::int64_t bytes = buffer.numel() * std::int64_t(buffer.element_size());
    const auto nparams = std::int64_t(bucket.getGradients().size());
    const int iteration = log_->iteration();
    const int index = int(bucket.getIndex());
    // One clock reading for the rank file's record and the trace's span.
    const std::int64_t start = monotonicNs();
    auto future = algorithm_->run(bucket, wireBytes);
    // Recorded after the launch, so a launch that throws leaves no half record; the future
    // may already be complete (the local hook), and then() below still sees the slot.
    const std::size_t slot = log_->launch(index, bytes, wireBytes, nparams, start);
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

at::Tensor TimingCommHook::parseHookResult(const c10::IValue& result) {
    return result.isTensor() ? result.toTensor() : result.toTensorVector()[0];
}

} // namespace commprof::rank
