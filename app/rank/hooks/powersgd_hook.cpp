// SPDX-License-Identifier: GPL-3.0-or-later
#include "hooks/powersgd_hook.h"

#include <ATen/core/grad_mode.h>
#include <c10/core/StreamGuard.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>

#include <algorithm>

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

} // namespace

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

    std::vector<c10::Device> devices;
    if (!input.device().is_cpu()) {
        devices.push_back(input.device());
    }
    auto result = c10::make_intrusive<c10::ivalue::Future>(c10::TensorType::get(), devices);
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

at::Tensor PowerSgdHook::compress(c10d::GradBucket& bucket, const Plan& plan) {
    const int world = pg_->getSize();
    at::Tensor input = bucket.getBufferRef();
    const std::size_t index = bucket.getIndex();
    const auto options = input.options();

    // Error feedback: last iteration's local error joins this one's gradients.
    at::Tensor inputCopy;
    if (o_.useErrorFeedback) {
        if (auto e = error_.find(index); e != error_.end()) {
            input.add_(e->second);
        } else {
            error_[index] = at::zeros({input.size(0)}, options);
        }
        inputCopy = input.clone();
    }

    at::Tensor uncompressedMemory;
    if (plan.uncompressed.empty()) {
        uncompressedMemory = at::empty({0}, options);
    } else {
        std::vector<at::Tensor> flat;
        for (const auto& t : plan.uncompressed) {
            flat.push_back(t.view(-1));
        }
        uncompressedMemory = at::cat(flat);
    }

    const bool randomizeQs = !o_.warmStart || !p_.count(index);
    if (randomizeQs) {
        p_[index] = at::empty({plan.totalP}, options);
        q_[index] = at::empty({plan.totalQ}, options);
    }

    // Python batches by shape through a dict: shapes in the order they first appear, and the
    // P and Q memories laid out in that order.
    std::vector<std::pair<std::vector<std::int64_t>, std::vector<at::Tensor>>> byShape;
    for (const auto& matrix : plan.toCompress) {
        const auto shape = matrix.sizes().vec();
        auto g = std::find_if(byShape.begin(), byShape.end(),
                              [&](const auto& group) { return group.first == shape; });
        if (g == byShape.end()) {
            byShape.push_back({shape, {matrix}});
        } else {
            g->second.push_back(matrix);
        }
    }
    std::vector<at::Tensor> matrices, ps, qs;
    std::int64_t pIdx = 0, qIdx = 0;
    for (const auto& group : byShape) {
        for (const auto& matrix : group.second) {
            const std::int64_t n = matrix.size(0), m = matrix.size(1);
            const std::int64_t r = std::min<std::int64_t>({n, m, o_.matrixApproximationRank});
            matrices.push_back(matrix.unsqueeze(0));
            ps.push_back(p_[index].narrow(0, pIdx, n * r).view({1, n, r}));
            qs.push_back(q_[index].narrow(0, qIdx, m * r).view({1, m, r}));
            pIdx += n * r;
            qIdx += m * r;
        }
    }

    if (!randomizeQs) {
        for (auto& q : qs) {
            orthogonalize(q, o_.orthogonalizationEpsilon);
        }
    } else {
        // Python: torch.manual_seed(rng.randint(1e9)) in a forked RNG, then torch.randn on the
        // CPU per Q; a generator of our own seeded alike draws the same values.
        at::Generator gen = at::detail::createCPUGenerator(nextSeed());
        for (auto& q : qs) {
            q.copy_(at::randn(q.sizes(), gen, options.device(at::kCPU)));
            orthogonalize(q, o_.orthogonalizationEpsilon);
        }
    }

    for (std::size_t i = 0; i < matrices.size(); ++i) {
        at::bmm_out(ps[i], matrices[i], qs[i]);
    }

    allreduceAndWait(pg_, uncompressedMemory);
    uncompressedMemory.div_(world);
    std::int64_t idx = 0;
    for (const auto& t : plan.uncompressed) {
        at::Tensor(t).copy_(uncompressedMemory.narrow(0, idx, t.numel()).view_as(t));
        idx += t.numel();
    }

    // P is orthogonalised next, so it is not divided by the world size.
    allreduceAndWait(pg_, p_[index]);
    for (auto& p : ps) {
        orthogonalize(p, o_.orthogonalizationEpsilon);
    }
    for (std::size_t i = 0; i < matrices.size(); ++i) {
        at::bmm_out(qs[i], matrices[i].transpose(1, 2), ps[i]);
    }

    allreduceAndWait(pg_, q_[index]);
    q_[index].div_(world);
    for (std::size_t i = 0; i < matrices.size(); ++i) {
        at::bmm_out(matrices[i], ps[i], qs[i].transpose(1, 2));
    }
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
