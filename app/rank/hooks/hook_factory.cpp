// SPDX-License-Identifier: GPL-3.0-or-later
#include "hooks/hook_factory.h"

#include "fingerprint.h"

#include <torch/csrc/distributed/c10d/HashStore.hpp>

#include <stdexcept>

namespace commprof::rank {
namespace {

// --hook allreduce (alias timing): what DDP's default hook does, divide by the world size and
// all-reduce the bucket, with the determinism fingerprints around the collective.
class AllreduceHook : public BucketAlgorithm {
public:
    explicit AllreduceHook(ProcessGroupPtr pg) : pg_(std::move(pg)) {}

    void prepare(c10d::GradBucket& bucket) override {
        Fingerprinter& fp = Fingerprinter::instance();
        if (fp.captureSemantic()) {
            fp.record("ddp::grads_before_reduce#" + std::to_string(bucket.getIndex()),
                      bucket.getGradients());
        }
        // Divide first, as DDP's default hook does, so the sum cannot overflow in low precision.
        bucket.getBufferRef().div_(pg_->getSize());
    }

    FuturePtr run(c10d::GradBucket& bucket, std::int64_t& wireBytes) override {
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

private:
    ProcessGroupPtr pg_;
};

// --hook fp16_compress and bf16_compress: PyTorch's default_hooks.fp16_compress_hook and
// bf16_compress_hook. Cast the bucket to the narrow type, divide by the world size in that
// type, all-reduce, and copy the result back into the bucket.
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

// --hook local: no communication at all, the bucket only divided by the world size. The
// compute-only baseline: what a step costs when gradients are never exchanged (the ranks'
// models drift apart, which is the point of a baseline, not a training run).
class LocalHook : public BucketAlgorithm {
public:
    explicit LocalHook(int worldSize) : worldSize_(worldSize) {}
    FuturePtr run(c10d::GradBucket& bucket, std::int64_t& wireBytes) override {
        at::Tensor buffer = bucket.getBufferRef();
        buffer.div_(worldSize_);
        wireBytes = 0;
        auto done = tensorFuture(buffer.device());
        done->markCompleted(buffer);
        return done;
    }

private:
    int worldSize_;
};

// A one-element all-reduce in the hook's wire type, on every rank alike, before training: a
// backend that cannot reduce the type fails here with its own words, not in the middle of a
// backward pass.
void checkWireType(const ProcessGroupPtr& pg, const RankOptions& o, at::ScalarType type,
                   const c10::Device& device) {
    try {
        std::vector<at::Tensor> probe{
            at::zeros({1}, at::TensorOptions().dtype(type).device(device))};
        pg->allreduce(probe)->wait();
    } catch (const std::exception& e) {
        throw std::runtime_error("--hook " + o.hook + ": the " + o.backend +
                                 " backend of libtorch " + std::string(TORCH_VERSION) +
                                 " cannot all-reduce " + std::string(c10::toString(type)) +
                                 " tensors on " + device.str() + " (" + firstLine(e.what()) + ")");
    }
}

at::ScalarType wireTypeOf(const std::string& hook) {
    return hook == "bf16_compress" ? at::kBFloat16 : at::kHalf;
}

} // namespace

const std::vector<std::string>& hookNames() {
    static const std::vector<std::string> names{"allreduce", "fp16_compress", "bf16_compress",
                                                "powersgd",  "local",         "default"};
    return names;
}

std::map<std::string, std::string> glooCpuRefusals() {
    std::map<std::string, std::string> refused;
    try {
        auto store = c10::make_intrusive<c10d::HashStore>();
        auto pg = makeGlooGroup(store, 0, 1, "127.0.0.1", std::chrono::milliseconds(10000));
        RankOptions o;
        for (const std::string hook : {"fp16_compress", "bf16_compress"}) {
            o.hook = hook;
            try {
                checkWireType(pg, o, wireTypeOf(hook), c10::Device(c10::kCPU));
            } catch (const std::exception& e) {
                refused[hook] = e.what();
            }
        }
    } catch (const std::exception& e) {
        refused["*"] = "no gloo group on 127.0.0.1 to try the hooks on: " + firstLine(e.what());
    }
    return refused;
}

std::shared_ptr<const PowerSgdCounters> installHook(c10d::Reducer& reducer, const RankOptions& o,
                                                    const ProcessGroupPtr& pg,
                                                    std::shared_ptr<BucketLog> log,
                                                    const c10::Device& device) {
    std::shared_ptr<const PowerSgdCounters> counters;
    const std::string& name = o.hook; // options.cpp has turned "timing" into "allreduce"
    if (name == "default") {
        // DDP's own C++ all-reduce, untimed: the reference the timing hook is compared with.
        reducer.register_builtin_comm_hook(c10d::BuiltinCommHookType::ALLREDUCE);
        return counters;
    }
    std::unique_ptr<BucketAlgorithm> algorithm;
    if (name == "allreduce") {
        algorithm = std::make_unique<AllreduceHook>(pg);
    } else if (name == "fp16_compress" || name == "bf16_compress") {
        const auto type = wireTypeOf(name);
        checkWireType(pg, o, type, device);
        algorithm = std::make_unique<CompressHook>(pg, type);
    } else if (name == "powersgd") {
        auto hook = std::make_unique<PowerSgdHook>(
            pg, PowerSgdOptions{o.powersgdRank, o.powersgdStartIter});
        counters = hook->counters();
        algorithm = std::move(hook);
    } else if (name == "local") {
        algorithm = std::make_unique<LocalHook>(pg->getSize());
    } else {
        throw std::invalid_argument("unknown --hook '" + o.hook + "'");
    }
    reducer.register_comm_hook(
        std::make_unique<TimingCommHook>(std::move(algorithm), std::move(log), o.hookDelayMs));
    return counters;
}

} // namespace commprof::rank
