// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Synthetic models of a requested parameter count (within 2 %): an MLP family and a
// transformer-block family whose buckets differ in shape.

#include <torch/torch.h>

#include <memory>
#include <string>

namespace commprof::rank {

struct SyntheticModel {
    std::shared_ptr<torch::nn::Module> module;
    // Builds the input and target of one batch on the model's device.
    // Input and target of one batch, drawn on the CPU from gen and moved to the model's device.
    std::function<std::pair<torch::Tensor, torch::Tensor>(int batch, at::Generator& gen)> makeBatch;
    std::function<torch::Tensor(const torch::Tensor& input)> forward;
    std::string description;
};

SyntheticModel makeModel(const std::string& family, double params, const torch::Device& device);
std::int64_t countParameters(const torch::nn::Module& module);

} // namespace commprof::rank
