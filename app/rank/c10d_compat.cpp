#include "c10d_compat.h"

#include <stdexcept>

namespace commprof::rank {

#if TORCH_VERSION_MAJOR >= 2
// From 2.0 a process group is a front for per-device backends.
namespace {
ProcessGroupPtr wrapBackend(const c10::intrusive_ptr<c10d::Store>& store, int rank, int world,
                            c10::intrusive_ptr<c10d::Backend> backend,
                            c10d::ProcessGroup::BackendType type, c10::DeviceType device) {
    auto pg = c10::make_intrusive<c10d::ProcessGroup>(
        store, rank, world,
        c10::make_intrusive<c10d::ProcessGroup::Options>(
            type == c10d::ProcessGroup::BackendType::NCCL ? "nccl" : "gloo"));
    pg->setBackend(device, type, backend);
    pg->setDefaultBackend(type);
    return pg;
}
} // namespace
#endif

ProcessGroupPtr makeGlooGroup(const c10::intrusive_ptr<c10d::Store>& store, int rank, int world,
                              const std::string& bindAddress, std::chrono::milliseconds timeout) {
    auto options = c10d::ProcessGroupGloo::Options::create(timeout);
    // Gloo's transport binds to this address only: loopback for a single-host pool.
    options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname(bindAddress));
    options->threads = 2;
#if TORCH_VERSION_MAJOR >= 2
    auto backend = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, world, options);
    auto pg = wrapBackend(store, rank, world, backend, c10d::ProcessGroup::BackendType::GLOO,
                          c10::DeviceType::CPU);
    pg->setBackend(c10::DeviceType::CUDA, c10d::ProcessGroup::BackendType::GLOO, backend);
    return pg;
#else
    return c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, world, options);
#endif
}

ProcessGroupPtr makeNcclGroup(const c10::intrusive_ptr<c10d::Store>& store, int rank, int world,
                              std::chrono::milliseconds timeout) {
#ifdef USE_C10D_NCCL
    auto options = c10d::ProcessGroupNCCL::Options::create();
    options->timeout = timeout;
#if TORCH_VERSION_MAJOR >= 2
    auto backend = c10::make_intrusive<c10d::ProcessGroupNCCL>(store, rank, world, options);
    return wrapBackend(store, rank, world, backend, c10d::ProcessGroup::BackendType::NCCL,
                       c10::DeviceType::CUDA);
#else
    return c10::make_intrusive<c10d::ProcessGroupNCCL>(store, rank, world, options);
#endif
#else
    (void)store;
    (void)rank;
    (void)world;
    (void)timeout;
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

} // namespace commprof::rank
