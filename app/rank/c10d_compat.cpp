// SPDX-License-Identifier: GPL-3.0-or-later
#include "c10d_compat.h"

#include <ATen/core/grad_mode.h>

#include <dlfcn.h>

#include <algorithm>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace commprof::rank {
namespace {

// 2.0 to 2.5 give a ProcessGroup an Options object naming its backend; 2.6 dropped it.
template <typename PG, typename = void> struct HasGroupOptions : std::false_type {};
template <typename PG>
struct HasGroupOptions<PG, std::void_t<typename PG::Options>> : std::true_type {};

template <typename PG>
c10::intrusive_ptr<PG> makeFrontGroup(const c10::intrusive_ptr<c10d::Store>& store, int rank,
                                      int world, const std::string& backendName) {
    if constexpr (HasGroupOptions<PG>::value) {
        return c10::make_intrusive<PG>(store, rank, world,
                                       c10::make_intrusive<typename PG::Options>(backendName));
    } else {
        return c10::make_intrusive<PG>(store, rank, world);
    }
}

// 2.4 added TCPStoreOptions::useLibUV (on by default); 1.13 has no such member.
template <typename O, typename = void> struct HasUseLibUV : std::false_type {};
template <typename O>
struct HasUseLibUV<O, std::void_t<decltype(std::declval<O&>().useLibUV)>> : std::true_type {};

template <typename O> void askForTheClassicStore(O& options) {
    if constexpr (HasUseLibUV<O>::value) {
        options.useLibUV = false;
    }
}

#if TORCH_VERSION_MAJOR >= 2
// From 2.0 a process group is a front for per-device backends.
ProcessGroupPtr wrapBackend(const c10::intrusive_ptr<c10d::Store>& store, int rank, int world,
                            c10::intrusive_ptr<c10d::Backend> backend,
                            c10d::ProcessGroup::BackendType type,
                            std::initializer_list<c10::DeviceType> devices) {
    const bool nccl = type == c10d::ProcessGroup::BackendType::NCCL;
    auto pg = makeFrontGroup<c10d::ProcessGroup>(store, rank, world, nccl ? "nccl" : "gloo");
    for (const auto device : devices) {
        pg->setBackend(device, type, backend);
    }
    pg->setDefaultBackend(type);
    return pg;
}
#endif

} // namespace

c10d::TCPStoreOptions tcpStoreClientOptions(int port, std::chrono::milliseconds timeout) {
    c10d::TCPStoreOptions opts;
    opts.port = std::uint16_t(port);
    opts.isServer = false;
    opts.waitWorkers = false;
    opts.timeout = timeout;
    askForTheClassicStore(opts);
    return opts;
}

ProcessGroupPtr makeGlooGroup(const c10::intrusive_ptr<c10d::Store>& store, int rank, int world,
                              const std::string& bindAddress, std::chrono::milliseconds timeout) {
    auto options = c10d::ProcessGroupGloo::Options::create(timeout);
    // Gloo's transport binds to this address only: loopback for a single-host pool.
    options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname(bindAddress));
    options->threads = 2;
    auto gloo = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, world, options);
#if TORCH_VERSION_MAJOR >= 2
    // Gloo also serves CUDA tensors (staged through the host).
    return wrapBackend(store, rank, world, gloo, c10d::ProcessGroup::BackendType::GLOO,
                       {c10::DeviceType::CPU, c10::DeviceType::CUDA});
#else
    return gloo;
#endif
}

ProcessGroupPtr makeNcclGroup(const c10::intrusive_ptr<c10d::Store>& store, int rank, int world,
                              std::chrono::milliseconds timeout) {
#ifdef USE_C10D_NCCL
    auto options = c10d::ProcessGroupNCCL::Options::create();
    options->timeout = timeout;
    auto nccl = c10::make_intrusive<c10d::ProcessGroupNCCL>(store, rank, world, options);
#if TORCH_VERSION_MAJOR >= 2
    return wrapBackend(store, rank, world, nccl, c10d::ProcessGroup::BackendType::NCCL,
                       {c10::DeviceType::CUDA});
#else
    return nccl;
#endif
#else
    (void)store, (void)rank, (void)world, (void)timeout;
    throw std::runtime_error(
        "this libtorch was built without NCCL: --backend nccl is not available");
#endif
}

std::string ncclVersionString() {
#ifdef USE_C10D_NCCL
    return c10d::getNcclVersion();
#else
    return "";
#endif
}

bool libtorchHasKineto() {
    // Kineto linked into libtorch exports its entry point, libkineto::api().
    return ::dlsym(RTLD_DEFAULT, "_ZN9libkineto3apiEv") != nullptr;
}

BucketAssignment assignBuckets(const std::vector<at::Tensor>& params, std::size_t firstCapBytes,
                               std::size_t capBytes) {
    auto assignment = c10d::compute_bucket_assignment_by_size(
        params, {firstCapBytes, capBytes}, std::vector<bool>(params.size(), false));
    BucketAssignment out{std::get<0>(assignment), std::get<1>(assignment)};
    // As Python DDP does: the last parameters' gradients are ready first.
    std::reverse(out.indices.begin(), out.indices.end());
    std::reverse(out.limits.begin(), out.limits.end());
    return out;
}

std::unique_ptr<c10d::Reducer> makeReducer(const std::vector<at::Tensor>& params,
                                           const BucketAssignment& buckets, ProcessGroupPtr pg,
                                           std::size_t firstCapBytes, std::size_t capBytes,
                                           std::unordered_map<std::size_t, std::string> names,
                                           bool gradientAsBucketView, bool findUnused) {
    return std::make_unique<c10d::Reducer>(params, buckets.indices, buckets.limits, std::move(pg),
                                           std::vector<bool>(params.size(), false),
                                           std::int64_t(capBytes), findUnused, gradientAsBucketView,
                                           std::move(names), std::int64_t(firstCapBytes));
}

std::vector<std::vector<std::size_t>> currentBuckets(const c10d::Reducer& reducer,
                                                     const std::vector<at::Tensor>& params) {
    std::unordered_map<const void*, std::size_t> indexOf;
    for (std::size_t i = 0; i < params.size(); ++i) {
        indexOf[params[i].unsafeGetTensorImpl()] = i;
    }
    std::vector<std::vector<std::size_t>> out;
    for (const auto& bucket : reducer.get_grad_buckets(/*return_zero_tensors=*/false)) {
        auto& indices = out.emplace_back();
        for (const auto& p : bucket.getParameters()) {
            indices.push_back(indexOf.at(p.unsafeGetTensorImpl()));
        }
    }
    return out;
}

void syncParamsFromRank0(const ProcessGroupPtr& pg, std::vector<at::Tensor>& params) {
    at::NoGradGuard noGrad; // the broadcast writes into leaf tensors
    c10d::verify_params_across_processes(pg, params, {});
    c10d::broadcast_coalesced(pg, params, std::size_t{250} << 20, 0); // Python DDP's size
}

void broadcastBuffers(const ProcessGroupPtr& pg, std::vector<at::Tensor>& buffers) {
    at::NoGradGuard noGrad;
    c10d::broadcast_coalesced(pg, buffers, std::size_t{250} << 20, 0);
}

} // namespace commprof::rank
