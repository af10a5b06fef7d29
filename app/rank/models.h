// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the DDP loop trains: a synthetic model of a requested parameter count (within 2 %), an
// MLP family and a transformer-block family whose buckets differ in shape, or a TorchScript
// module (torchscript_model.h).

#include <torch/torch.h>

#include <memory>
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

} // namespace commprof::rank
