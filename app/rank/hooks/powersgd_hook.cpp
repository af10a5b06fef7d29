// SPDX-License-Identifier: GPL-3.0-or-later
#include "hooks/powersgd_hook.h"

#include "spec/mapped.h"

#include <ATen/core/grad_mode.h>
#include <c10/core/StreamGuard.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>

#include <algorithm>
#include <map>

namespace commprof::rank {
namespace {

// torch.norm(col, dim=1, keepdim=True) as Python's torch.norm computes it: frobenius_norm in
// 1.13, linalg.vector_norm from 2.0.
at::Tensor columnNorm(const at::Tensor& col) {
#if TORCH_VERSION_MAJOR >= 2
    return at::linalg_vector_norm(col, 2, {1}, true);
#else
    return at::frobenius_norm(col, {1}, true);
#endif
}

void gramSchmidt(at::Tensor& matrices, double epsilon) {
    const std::int64_t cols = matrices.size(2);
    for (std::int64_t i = 0; i < cols; ++i) {
        at::Tensor col = matrices.narrow(2, i, 1);
        // With epsilon 0 a zero column becomes NaN, as in Python (its ZeroDivisionError
        // branch is never taken for tensors).
        col.div_(epsilon == 0 ? columnNorm(col) : columnNorm(col) + epsilon);
        if (i + 1 < cols) {
            at::Tensor rest = matrices.narrow(2, i + 1, cols - i - 1);
            rest.sub_(at::sum(col * rest, {1}, true) * col);
        }
    }
}

void allreduceAndWait(const ProcessGroupPtr& pg, const at::Tensor& t) {
    std::vector<at::Tensor> tensors{t};
    pg->allreduce(tensors)->wait();
}

// _orthogonalize: Gram-Schmidt for ranks up to 2 and half types, QR otherwise; in place on a
// batch of matrices (batch, rows, rank).
void orthogonalize(at::Tensor matrices, double epsilon) {
    const std::int64_t rank = matrices.size(2);
    const auto dtype = matrices.scalar_type();
    if (rank <= 2 || dtype == at::kHalf || dtype == at::kBFloat16) {
        gramSchmidt(matrices, epsilon);
    } else {
        at::Tensor r = at::empty({matrices.size(0), rank, rank}, matrices.options());
        at::linalg_qr_out(matrices, r, matrices, "reduced");
    }
}

} // namespace

PowerSgdHook::PowerSgdHook(ProcessGroupPtr pg, PowerSgdOptions options)
    : pg_(std::move(pg)), o_(options), rng_(options.randomSeed) {}

std::uint32_t PowerSgdHook::nextSeed() {
    // numpy RandomState.randint(1_000_000_000): 32-bit draws masked to 30 bits, rejected above
    // the range.
    constexpr std::uint32_t range = 1000000000u - 1u;
    constexpr std::uint32_t mask = (1u << 30) - 1u;
    std::uint32_t v = 0;
    do {
        v = std::uint32_t(rng_()) & mask;
    } while (v > range);
    return v;
}

void PowerSgdHook::maybeIncreaseIter(const c10d::GradBucket& bucket) {
    // The last bucket is the last one reduced in an iteration.
    if (bucket.isLast()) {
        ++iter_;
    }
}

PowerSgdHook::Plan PowerSgdHook::plan(const c10d::GradBucket& bucket) {
    Plan p;
    for (const at::Tensor& tensor : bucket.getGradients()) {
        at::Tensor matrix = tensor.view({tensor.size(0), -1});
        const std::int64_t n = matrix.size(0), m = matrix.size(1);
        const std::int64_t r = std::min<std::int64_t>({n, m, o_.matrixApproximationRank});
        const std::int64_t compressed = (n + m) * r;
        counters_->numelBefore += n * m;
        if (double(compressed) * o_.minCompressionRate < double(n * m)) {
            p.toCompress.push_back(matrix);
            p.totalP += n * r;
            p.totalQ += m * r;
            counters_->numelAfter += compressed;
        } else {
            p.uncompressed.push_back(tensor);
            counters_->numelAfter += n * m;
        }
    }
    return p;
}

FuturePtr PowerSgdHook::run(c10d::GradBucket& bucket, std::int64_t& wireBytes) {
    at::Tensor input = bucket.getBufferRef();
    const std::int64_t elementSize = std::int64_t(input.element_size());
    if (iter_.load() < o_.startIter) {
        maybeIncreaseIter(bucket);
        input.div_(pg_->getSize());
        wireBytes = input.numel() * elementSize;
        std::vector<at::Tensor> tensors{input};
        return pg_->allreduce(tensors)->getFuture();
    }
    Plan p = plan(bucket);
    std::int64_t uncompressedNumel = 0;
    for (const auto& t : p.uncompressed) {
        uncompressedNumel += t.numel();
    }
    wireBytes = (uncompressedNumel + p.totalP + p.totalQ) * elementSize;
    ++counters_->compressedBuckets;

    auto result = tensorFuture(input.device());
    // The worker computes on the stream the Reducer called the hook on, as Python's hook does.
    const c10::Stream stream =
        c10::impl::getDeviceGuardImpl(input.device().type())->getStream(input.device());
    worker_.post([this, bucket, p = std::move(p), result, stream]() mutable {
        try {
            at::NoGradGuard noGrad;
            c10::optional<c10::StreamGuard> onStream;
            if (stream.device_type() != c10::DeviceType::CPU) {
                onStream.emplace(stream);
            }
            at::Tensor out = compress(bucket, p);
            result->markCompleted(out);
        } catch (...) {
            result->setError(std::current_exception());
        }
    });
    return result;
}

namespace {

// Error feedback: last iteration's local error joins this one's gradients. Returns the input
// as it is compressed, to take the next error from.
at::Tensor addError(std::map<std::size_t, at::Tensor>& errors, at::Tensor& input,
                    std::size_t index) {
    if (auto e = errors.find(index); e != errors.end()) {
        input.add_(e->second);
    } else {
        errors[index] = at::zeros({input.size(0)}, input.options());
    }
    return input.clone();
}

// The uncompressed tensors side by side, all-reduced in one call as Python's hook does.
at::Tensor catUncompressed(const std::vector<at::Tensor>& uncompressed,
                           const at::TensorOptions& options) {
    if (uncompressed.empty()) {
        return at::empty({0}, options);
    }
    return at::cat(spec::mapped<std::vector<at::Tensor>>(
        uncompressed, [](const at::Tensor& t) { return t.view(-1); }));
}

// The matrices to compress with their P and Q: (1, rows, rank) views into the bucket's P and Q
// memories.
struct LowRank {
    std::vector<at::Tensor> matrices, ps, qs;
};

// Python batches by shape through a dict: shapes in the order they first appear, and the P and
// Q memories laid out in that order.
LowRank lowRankViews(const std::vector<at::Tensor>& toCompress, const at::Tensor& pMemory,
                     const at::Tensor& qMemory, std::int64_t approximationRank) {
    std::vector<std::pair<std::vector<std::int64_t>, std::vector<at::Tensor>>> byShape;
    for (const auto& matrix : toCompress) {
        const auto shape = matrix.sizes().vec();
        auto g = std::find_if(byShape.begin(), byShape.end(),
                              [&](const auto& group) { return group.first == shape; });
        if (g == byShape.end()) {
            g = byShape.insert(byShape.end(), {shape, {}});
        }
        g->second.push_back(matrix);
    }
    LowRank out;
    std::int64_t pIdx = 0, qIdx = 0;
    for (const auto& group : byShape) {
        for (const auto& matrix : group.second) {
            const std::int64_t n = matrix.size(0), m = matrix.size(1);
            const std::int64_t r = std::min<std::int64_t>({n, m, approximationRank});
            out.matrices.push_back(matrix.unsqueeze(0));
            out.ps.push_back(pMemory.narrow(0, pIdx, n * r).view({1, n, r}));
            out.qs.push_back(qMemory.narrow(0, qIdx, m * r).view({1, m, r}));
            pIdx += n * r;
            qIdx += m * r;
        }
    }
    return out;
}

// Python: torch.manual_seed(rng.randint(1e9)) in a forked RNG, then torch.randn on the CPU per
// Q; a generator of our own seeded alike draws the same values.
void randomQs(std::vector<at::Tensor>& qs, std::uint32_t seed, const at::TensorOptions& options,
              double epsilon) {
    at::Generator gen = at::detail::createCPUGenerator(seed);
    for (auto& q : qs) {
        q.copy_(at::randn(q.sizes(), gen, options.device(at::kCPU)));
        orthogonalize(q, epsilon);
    }
}

// The uncompressed tensors' mean over the ranks, written back into the bucket.
void averageUncompressed(const ProcessGroupPtr& pg, at::Tensor memory,
                         const std::vector<at::Tensor>& uncompressed) {
    allreduceAndWait(pg, memory);
    memory.div_(pg->getSize());
    std::int64_t idx = 0;
    for (const auto& t : uncompressed) {
        at::Tensor(t).copy_(memory.narrow(0, idx, t.numel()).view_as(t));
        idx += t.numel();
    }
}

// Each M = A B, batch by batch (A or B transposed as the caller views them).
void multiplyInto(std::vector<at::Tensor>& out, const std::vector<at::Tensor>& a,
                  const std::vector<at::Tensor>& b) {
    for (std::size_t i = 0; i < out.size(); ++i) {
        at::bmm_out(out[i], a[i], b[i]);
    }
}

std::vector<at::Tensor> transposed(const std::vector<at::Tensor>& batches) {
    return spec::mapped<std::vector<at::Tensor>>(
        batches, [](const at::Tensor& t) { return t.transpose(1, 2); });
}

} // namespace

// PowerSGD's step on one bucket, as torch.distributed's powerSGD_hook computes it: P = M Q,
// all-reduce P and orthogonalise it, Q = M^T P, all-reduce Q and average it, M = P Q^T.
at::Tensor PowerSgdHook::compress(c10d::GradBucket& bucket, const Plan& plan) {
    at::Tensor input = bucket.getBufferRef();
    const std::size_t index = bucket.getIndex();
    const auto options = input.options();
    const at::Tensor inputCopy =
        o_.useErrorFeedback ? addError(error_, input, index) : at::Tensor();
    at::Tensor uncompressedMemory = catUncompressed(plan.uncompressed, options);

    const bool randomizeQs = !o_.warmStart || !p_.count(index);
    if (randomizeQs) {
        p_[index] = at::empty({plan.totalP}, options);
        q_[index] = at::empty({plan.totalQ}, options);
    }
    LowRank lr = lowRankViews(plan.toCompress, p_[index], q_[index], o_.matrixApproximationRank);
    if (!randomizeQs) {
        for (auto& q : lr.qs) {
            orthogonalize(q, o_.orthogonalizationEpsilon);
        }
    } else {
        randomQs(lr.qs, nextSeed(), options, o_.orthogonalizationEpsilon);
    }
    multiplyInto(lr.ps, lr.matrices, lr.qs);

    averageUncompressed(pg_, uncompressedMemory, plan.uncompressed);
    // P is orthogonalised next, so it is not divided by the world size.
    allreduceAndWait(pg_, p_[index]);
    for (auto& p : lr.ps) {
        orthogonalize(p, o_.orthogonalizationEpsilon);
    }
    multiplyInto(lr.qs, transposed(lr.matrices), lr.ps);
    allreduceAndWait(pg_, q_[index]);
    q_[index].div_(pg_->getSize());
    multiplyInto(lr.matrices, lr.ps, transposed(lr.qs));
    if (!input.device().is_cpu()) {
        c10::impl::getDeviceGuardImpl(input.device().type())
            ->getStream(input.device())
            .synchronize();
    }

    if (o_.useErrorFeedback) {
        error_[index] = inputCopy - input;
    }
    if (!o_.warmStart) {
        p_.clear();
        q_.clear();
    }
    maybeIncreaseIter(bucket);
    return input;
}

} // namespace commprof::rank
