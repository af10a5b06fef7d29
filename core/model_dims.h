#pragma once
// Layer widths of the synthetic model families for a requested parameter count. Plain C++,
// header-only: commprof-rank builds the models from it and core/feasibility sizes their
// activations from it, so the two can never disagree.

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace commprof::dims {

constexpr int kMlpDepth = 6; // hidden Linear(h, h) layers, then a head
constexpr int kBlocks = 4;   // transformer blocks, then a head
constexpr int kSeqLen = 16;  // tokens per sample in the transformer family
constexpr int kHeadDim = 64;

struct ModelDims {
    std::int64_t width = 0; // h (MLP) or d (transformer)
    std::int64_t outWidth = 0;
    std::int64_t heads = 0; // transformer only
};

inline std::int64_t fillWidth(double target, double body, std::int64_t in) {
    return std::max<std::int64_t>(1, std::llround((target - body) / double(in + 1)));
}

// (depth + 1) (h^2 + h) ~= params; the head's width absorbs the rounding.
inline ModelDims mlpDims(double params) {
    auto h =
        std::int64_t(std::floor((-1.0 + std::sqrt(1.0 + 4.0 * params / (kMlpDepth + 1))) / 2.0));
    h = std::max<std::int64_t>(h, 8);
    const double body = double(kMlpDepth) * double(h * h + h);
    return {h, fillWidth(params, body, h), 0};
}

// Per block 12 d^2 + 13 d (qkv, proj, up, down, two layer norms); d a multiple of the head size.
inline ModelDims transformerDims(double params) {
    auto d = std::int64_t(std::sqrt(params / (12.0 * kBlocks + 1.0)) / kHeadDim) * kHeadDim;
    d = std::max<std::int64_t>(d, kHeadDim);
    const double body = kBlocks * (12.0 * double(d * d) + 13.0 * double(d));
    return {d, fillWidth(params, body, d), d / kHeadDim};
}

} // namespace commprof::dims
