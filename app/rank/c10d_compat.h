// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The one place that knows which libtorch is at hand: 1.13 (Debian 12), 2.6 (Debian 13) or a
// 2.x PyTorch wheel on a GPU machine. Everything else includes this instead of c10d headers
// and calls the functions below where the two differ.

#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/csrc/distributed/c10d/comm.hpp>
#include <torch/csrc/distributed/c10d/reducer.hpp>
#include <torch/version.h>
#ifdef USE_C10D_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace commprof::rank {

#ifdef USE_C10D_NCCL
constexpr bool kHasNccl = true;
#else
constexpr bool kHasNccl = false;
#endif

#ifdef USE_CUDA
constexpr bool kHasCudaBuild = true;
#else
constexpr bool kHasCudaBuild = false;
#endif

// The first line of an error's what(): libtorch's carry a C++ backtrace after it.
inline std::string firstLine(const std::string& what) {
    return what.substr(0, what.find('\n'));
}

// Whatever the Reducer and our hook talk to.
using ProcessGroupPtr = c10::intrusive_ptr<c10d::ProcessGroup>;

ProcessGroupPtr makeGlooGroup(const c10::intrusive_ptr<c10d::Store>& store, int rank, int world,
                              const std::string& bindAddress, std::chrono::milliseconds timeout);
ProcessGroupPtr makeNcclGroup(const c10::intrusive_ptr<c10d::Store>& store, int rank, int world,
                              std::chrono::milliseconds timeout);

std::string ncclVersionString();

// Whether the libtorch this process runs was built with Kineto (torch.profiler's engine). Its
// USE_KINETO is a flag of libtorch's own build, invisible to code that includes its headers.
bool libtorchHasKineto();

// Options for a client of a TCPStore that another process serves (torchrun's agent). From 2.4
// they ask for libuv by default, which a libtorch built without it (Debian 13's 2.6) refuses
// even in a client; a client speaks the same protocol to either server, so it asks for none.
c10d::TCPStoreOptions tcpStoreClientOptions(int port, std::chrono::milliseconds timeout);

// A store of our own. Recent PyTorch (2.7 on) makes Store::clone() pure virtual; declared here
// without `override` it overrides that one where it exists and is merely ours elsewhere.
class CompatStore : public c10d::Store {
public:
    using c10d::Store::Store;
    // Another handle on the same underlying store, usable from another thread.
    virtual c10::intrusive_ptr<c10d::Store> clone() = 0; // NOLINT(modernize-use-override)
};

// DDP's bucket assignment, in the order the Reducer takes it (the last parameters' gradients
// are ready first): indices into `params` per bucket, and each bucket's size limit.
struct BucketAssignment {
    std::vector<std::vector<std::size_t>> indices;
    std::vector<std::size_t> limits;
};
BucketAssignment assignBuckets(const std::vector<at::Tensor>& params, std::size_t firstCapBytes,
                               std::size_t capBytes);

// PyTorch's c10d::Reducer for dense parameters, with DDP's small first bucket after the
// rebuild; the gradients are copied out of the buckets unless `gradientAsBucketView`. Without
// `findUnused` every parameter must get a gradient each iteration (DDP's default).
std::unique_ptr<c10d::Reducer> makeReducer(const std::vector<at::Tensor>& params,
                                           const BucketAssignment& buckets, ProcessGroupPtr pg,
                                           std::size_t firstCapBytes, std::size_t capBytes,
                                           std::unordered_map<std::size_t, std::string> names,
                                           bool gradientAsBucketView, bool findUnused = false);

// The Reducer's buckets as they are now (after a rebuild, in gradient-ready order): indices
// into `params` per bucket.
std::vector<std::vector<std::size_t>> currentBuckets(const c10d::Reducer& reducer,
                                                     const std::vector<at::Tensor>& params);

// Python DDP's setup: checks every rank holds the same parameter shapes, then broadcasts rank
// 0's values.
void syncParamsFromRank0(const ProcessGroupPtr& pg, std::vector<at::Tensor>& params);

// DDP's broadcast_buffers (its default): rank 0's buffers to every rank before each forward.
void broadcastBuffers(const ProcessGroupPtr& pg, std::vector<at::Tensor>& buffers);

} // namespace commprof::rank
