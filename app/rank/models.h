// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the DDP loop trains: a synthetic model of a requested parameter count (within 2 %), an
// MLP family and a transformer-block family whose buckets differ in shape, or a TorchScript
// module (commprof model export, or any torch.jit.script'ed module; torchscript_model.cpp):
// loaded with torch::jit::load, put in train mode, fed an image batch with a cross-entropy
// target or token ids with a next-token loss.

#include "options.h"

#include <torch/torch.h>

#include <memory>
#include <stdexcept>
#include <string>

namespace commprof::rank {

using NamedTensors = std::vector<std::pair<std::string, torch::Tensor>>;

struct TrainingModel {
    std::shared_ptr<void> owner; // keeps the module the tensors and functions belong to
    NamedTensors parameters;     // every parameter, frozen ones too, in registration order
    NamedTensors buffers;
    // Input and target of one batch, drawn on the CPU from gen and moved to the model's device.
    std::function<std::pair<torch::Tensor, torch::Tensor>(int batch, at::Generator& gen)> makeBatch;
    std::function<torch::Tensor(const torch::Tensor& input)> forward;
    std::function<torch::Tensor(const torch::Tensor& output, const torch::Tensor& target)> loss;
    std::string description;
};

TrainingModel makeModel(const std::string& family, double params, const torch::Device& device);
std::int64_t countParameters(const NamedTensors& tensors);

// Every message names the file and what was wrong with it.
struct ModelFileError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Throws ModelFileError for a missing, unreadable, truncated or non-TorchScript file.
TrainingModel loadTorchScript(const RankOptions& o, const torch::Device& device);

// The first forward's output against the input spec: a tensor of [batch, classes] or
// [batch, tokens, vocab]. Throws ModelFileError otherwise.
void checkOutput(const RankOptions& o, const torch::Tensor& output, int batch);
// What the first forward's exception says about the file and the input spec.
ModelFileError forwardFailure(const RankOptions& o, const std::exception& e);

} // namespace commprof::rank
