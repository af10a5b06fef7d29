// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// --hook powersgd: PyTorch's powerSGD_hook (torch/distributed/algorithms/ddp_comm_hooks/
// powerSGD_hook.py, 1.13), step for step: vanilla all-reduce before start_powerSGD_iter; then
// per bucket, error feedback, the per-tensor choice between compressing and not
// (min_compression_rate), the uncompressed tensors all-reduced together, P = M Q, all-reduce P,
// orthogonalise P, Q = M^T P, all-reduce Q, M = P Q^T / world, the new local error, Q kept for
// a warm start. Q is drawn as Python draws it: numpy's RandomState(random_seed) gives each
// fresh draw a seed, and a CPU generator seeded with it gives torch.randn's values.

#include "hooks/bucket_algorithm.h"
#include "hooks/ordered_worker.h"

#include <atomic>
#include <map>
#include <memory>
#include <random>

namespace commprof::rank {

struct PowerSgdOptions {
    int matrixApproximationRank = 1;
    int startIter = 1000;
    double minCompressionRate = 2;
    bool useErrorFeedback = true;
    bool warmStart = true;
    double orthogonalizationEpsilon = 0;
    std::uint32_t randomSeed = 0;
};

// PowerSGDState's compression statistics, as its compression_stats() counts them.
struct PowerSgdCounters {
    std::atomic<std::int64_t> numelBefore{0};
    std::atomic<std::int64_t> numelAfter{0};
    std::atomic<std::int64_t> compressedBuckets{0};
};

class PowerSgdHook : public BucketAlgorithm {
public:
    PowerSgdHook(ProcessGroupPtr pg, PowerSgdOptions options);
    FuturePtr run(c10d::GradBucket& bucket, std::int64_t& wireBytes) override;
    std::shared_ptr<const PowerSgdCounters> counters() const { return counters_; }

private:
    struct Plan {
        std::vector<at::Tensor> toCompress; // 2-D views of the bucket's gradients
        std::vector<at::Tensor> uncompressed;
        std::int64_t totalP = 0, totalQ = 0;
    };
    Plan plan(const c10d::GradBucket& bucket);
    at::Tensor compress(c10d::GradBucket& bucket, const Plan& plan);
    std::uint32_t nextSeed();
    void maybeIncreaseIter(const c10d::GradBucket& bucket);

    ProcessGroupPtr pg_;
    PowerSgdOptions o_;
    std::mt19937 rng_; // numpy's legacy RandomState is this generator, seeded the same way
    std::atomic<int> iter_{0};
    std::map<std::size_t, at::Tensor> error_, p_, q_; // by bucket index; the worker's only
    std::shared_ptr<PowerSgdCounters> counters_ = std::make_shared<PowerSgdCounters>();
    OrderedWorker worker_; // last: joined before the state above goes
};

} // namespace commprof::rank
