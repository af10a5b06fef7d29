// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The comm hook that times every gradient bucket, whatever algorithm reduces it
// (hooks/bucket_algorithm.h): it records launch and completion on a monotonic clock shared by
// every process of the host, and the bucket's span in the Chrome trace.

#include "hooks/bucket_algorithm.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace commprof::rank {

struct BucketRecord {
    int iteration = 0;
    int index = 0;
    std::int64_t bytes = 0;
    std::int64_t wireBytes = 0; // what the algorithm sent per rank (0 for the local hook)
    std::int64_t nparams = 0;
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
};

// CLOCK_MONOTONIC: the same clock in every process on one host.
std::int64_t monotonicNs();

class BucketLog {
public:
    void setIteration(int it) { iteration_.store(it); }
    int iteration() const { return iteration_.load(); }
    void setRecordFrom(int it) { recordFrom_ = it; }
    bool recording() const { return iteration_.load() >= recordFrom_; }

    // Returns the slot to complete later.
    std::size_t launch(int index, std::int64_t bytes, std::int64_t wireBytes, std::int64_t nparams,
                       std::int64_t startNs);
    void complete(std::size_t slot);
    // Records completed since the last call, for live progress lines.
    std::vector<BucketRecord> takeNew();
    std::vector<BucketRecord> all() const;

private:
    mutable std::mutex mutex_;
    std::vector<BucketRecord> records_;
    std::size_t reported_ = 0;
    std::atomic<int> iteration_{0};
    int recordFrom_ = 0;
};

class TimingCommHook : public c10d::CommHookInterface {
public:
    // completionDelayMs > 0 is for tests only: the hook completes that long after the backend
    // did, so it over-measures and must disagree with the backend's spans.
    TimingCommHook(std::unique_ptr<BucketAlgorithm> algorithm, std::shared_ptr<BucketLog> log,
                   double completionDelayMs = 0)
        : algorithm_(std::move(algorithm)), log_(std::move(log)),
          completionDelayMs_(completionDelayMs) {}
    c10::intrusive_ptr<c10::ivalue::Future> runHook(c10d::GradBucket& bucket) override;
    at::Tensor parseHookResult(const c10::IValue& result) override;

private:
    std::unique_ptr<BucketAlgorithm> algorithm_;
    std::shared_ptr<BucketLog> log_;
    double completionDelayMs_ = 0;
};

} // namespace commprof::rank
