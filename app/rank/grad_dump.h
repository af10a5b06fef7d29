// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// --dump-grads (test only): every iteration's reduced gradients (and, in params_rankR.pt, the
// parameters after the last step), written once at the end in the format torch.load reads, so
// a test can compare them with Python DDP's element by element.

#include <torch/torch.h>

#include <string>
#include <vector>

namespace commprof::rank {

class GradDump {
public:
    enum class Of { Grads, Values };
    // Copies every grad (or the parameters' values) to the CPU.
    void add(const std::vector<torch::Tensor>& params, Of of = Of::Grads);
    // A list (per iteration) of lists (per parameter) of tensors. Throws on a write error.
    void write(const std::string& path) const;

private:
    c10::List<c10::List<at::Tensor>> iterations_;
};

} // namespace commprof::rank
