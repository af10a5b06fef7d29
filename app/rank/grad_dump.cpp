// SPDX-License-Identifier: GPL-3.0-or-later
#include "grad_dump.h"

#include <ATen/record_function.h>

#include <fstream>
#include <stdexcept>

namespace commprof::rank {

void GradDump::add(const std::vector<torch::Tensor>& params) {
    at::DisableRecordFunctionGuard notTheModel; // instrumentation, not ops to trace
    c10::List<at::Tensor> grads;
    for (const auto& p : params) {
        grads.push_back(p.grad().detach().to(torch::kCPU).clone());
    }
    iterations_.push_back(grads);
}

void GradDump::write(const std::string& path) const {
    const std::vector<char> bytes = torch::pickle_save(c10::IValue(iterations_));
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), std::streamsize(bytes.size()));
    if (!out) {
        throw std::runtime_error("cannot write " + path);
    }
}

} // namespace commprof::rank
