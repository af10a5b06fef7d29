// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The synthetic model families: their layer widths for a requested parameter count and the
// activations one rank keeps for backward. Plain C++17, header-only: commprof-rank builds the
// models from it, core/matrix accepts exactly its names and core/feasibility sizes activations
// from it, so none of them can disagree.

#include "spec/names.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

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

namespace commprof::spec {

struct ModelFamily {
    std::string_view name;
    dims::ModelDims (*dims)(double params);
    // The feasibility coefficient that scales the saved activations (core/feasibility).
    std::string_view activationCoefficient;
    // Bytes of activations one rank keeps for backward, at `batch` samples.
    double (*activationBytes)(const dims::ModelDims& d, double batch, double coefficient);
    // A rank's --model preset is this prefix and a size: "mlp2m", "transformer500k".
    std::string_view presetPrefix;
};

// Saved Linear input, pre-activation and ReLU output per hidden layer, and the head's output.
inline double mlpActivationBytes(const dims::ModelDims& d, double batch, double coefficient) {
    return (dims::kMlpDepth * batch * double(d.width) * coefficient +
            batch * double(d.outWidth) * 2.0) *
           4.0;
}

// Per block the token-width activations and the attention scores (softmax input and output).
inline double transformerActivationBytes(const dims::ModelDims& d, double batch,
                                         double coefficient) {
    const double tokens = batch * dims::kSeqLen;
    const double perBlock = tokens * double(d.width) * coefficient * 4.0 +
                            batch * double(d.heads) * dims::kSeqLen * dims::kSeqLen * 4.0 * 2.0;
    return dims::kBlocks * perBlock + tokens * double(d.outWidth) * 4.0 * 2.0;
}

// Not a row of the table: a model entry that names a TorchScript file (`torchscript:`) trains
// that module, sized by the description beside it, not by a family's rule.
inline constexpr std::string_view kTorchScriptFamily = "torchscript";
// Why a scripted module whose parameter gets a sparse gradient is refused, by the rank and by
// the plan alike. Python DDP 1.13 finds sparse=True embeddings by isinstance, which a scripted
// module never passes, so it expects a dense gradient and stops at the first backward.
inline constexpr std::string_view kSparseGradientReason =
    "gets a sparse gradient (an nn.Embedding or nn.EmbeddingBag with sparse=True); DDP cannot "
    "tell that from a TorchScript module and stops at the first backward (Expected "
    "torch.FloatTensor, got torch.sparse.FloatTensor): script it with sparse=False";

inline constexpr std::array<ModelFamily, 2> kModelFamilies{{
    {"mlp", dims::mlpDims, "mlp_activation_floats_per_unit", mlpActivationBytes, "mlp"},
    {"transformer", dims::transformerDims, "transformer_activation_floats_per_token_width",
     transformerActivationBytes, "transformer"},
}};

inline const ModelFamily* findModelFamily(std::string_view name) {
    return rowNamed(kModelFamilies, name);
}

// "mlp, transformer": for messages that list what is allowed.
inline std::string modelFamilyNames() {
    return namesOf(kModelFamilies);
}

} // namespace commprof::spec
