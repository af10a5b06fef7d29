// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A TorchScript module (commprof model export, or any torch.jit.script'ed module) as the model
// the DDP loop trains: loaded with torch::jit::load, put in train mode, fed an image batch with
// a cross-entropy target or token ids with a next-token loss.

#include "models.h"
#include "options.h"

#include <stdexcept>

namespace commprof::rank {

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
