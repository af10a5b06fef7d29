#pragma once
// The one place that knows which libtorch is at hand: 1.13 (Debian, CPU) or 2.x (the
// PyTorch wheel on a GPU machine). Everything else includes this instead of c10d headers.

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

namespace commprof::rank {

constexpr bool kHasNccl =
#ifdef USE_C10D_NCCL
    true;
#else
    false;
#endif

constexpr bool kHasCudaBuild =
#ifdef USE_CUDA
    true;
#else
    false;
#endif

// Whatever the Reducer and our hook talk to.
using ProcessGroupPtr = c10::intrusive_ptr<c10d::ProcessGroup>;

ProcessGroupPtr makeGlooGroup(const c10::intrusive_ptr<c10d::Store>& store, int rank, int world,
                              const std::string& bindAddress, std::chrono::milliseconds timeout);
ProcessGroupPtr makeNcclGroup(const c10::intrusive_ptr<c10d::Store>& store, int rank, int world,
                              std::chrono::milliseconds timeout);

std::string ncclVersionString();

} // namespace commprof::rank
