// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The measurement layers: the one table that matrix defaults, feasibility, the probe, the
// report's headline, plot colours and commprof-rank read. Plain C++17, header-only, so the rank
// (no Qt) spells every layer, backend and interconnect exactly as core does.

#include "spec/names.h"

#include <array>
#include <string>
#include <string_view>

namespace commprof::spec {

// How a layer's ranks map onto GPUs.
enum class GpuRule {
    None,       // no GPU: host memory only
    OnePerRank, // NCCL refuses two ranks on one GPU
    Shared,     // gloo over CUDA tensors: ranks share the GPUs round-robin
};

struct Layer {
    std::string_view name;
    std::string_view backend; // the process group
    std::string_view device;  // where the model and gradients live
    // What carries the bytes between ranks; singleRankInterconnect where one rank moves nothing
    // that the backend could tell apart (NCCL reports "none" at world size 1).
    std::string_view interconnect;
    std::string_view singleRankInterconnect;
    GpuRule gpus;
    // Gloo cannot read device memory: it copies each bucket into pinned host buffers and back.
    bool stagesThroughHost;
    // The report's headline is the largest complete cell of this layer where there is one (the
    // layer whose cost the study is about), else the largest of any layer.
    bool headline;
    std::array<int, 3> rgb; // plot colour, fixed so figures of two runs compare
};

inline constexpr std::array<Layer, 3> kLayers{{
    {"gloo_cpu",
     "gloo",
     "cpu",
     "host_loopback",
     "host_loopback",
     GpuRule::None,
     false,
     false,
     {148, 103, 189}},
    {"gloo_cuda",
     "gloo",
     "cuda",
     "pcie_host_staged",
     "pcie_host_staged",
     GpuRule::Shared,
     true,
     true,
     {140, 86, 75}},
    {"nccl",
     "nccl",
     "cuda",
     "as_detected_by_nccl",
     "none",
     GpuRule::OnePerRank,
     false,
     false,
     {23, 190, 207}},
}};

inline const Layer* findLayer(std::string_view name) {
    return rowNamed(kLayers, name);
}

// The layer a rank started with --backend and --device belongs to (nullptr: no such layer).
inline const Layer* layerOf(std::string_view backend, std::string_view device) {
    return rowWhere(kLayers, [&](const Layer& l) {
        return l.backend == backend && (l.device == device || l.gpus == GpuRule::OnePerRank);
    });
}

inline const Layer* headlineLayer() {
    return rowWhere(kLayers, [](const Layer& l) { return l.headline; });
}

inline bool usesDevice(const Layer& l) {
    return l.gpus != GpuRule::None;
}

inline std::string_view interconnectAt(const Layer& l, int worldSize) {
    return worldSize == 1 ? l.singleRankInterconnect : l.interconnect;
}

// "gloo_cpu, gloo_cuda, nccl": for messages that list what is allowed.
inline std::string layerNames() {
    return namesOf(kLayers);
}

} // namespace commprof::spec
