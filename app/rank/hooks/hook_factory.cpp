// SPDX-License-Identifier: GPL-3.0-or-later
#include "hooks/hook_factory.h"

#include "hooks/allreduce_hook.h"
#include "hooks/compress_hook.h"
#include "hooks/local_hook.h"

#include <torch/csrc/distributed/c10d/HashStore.hpp>

#include <stdexcept>

namespace commprof::rank {
namespace {

std::string firstLine(const std::string& s) {
    return s.substr(0, s.find('\n'));
}

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
