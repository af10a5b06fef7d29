// SPDX-License-Identifier: GPL-3.0-or-later
#include "grad_dump.h"

#include <ATen/record_function.h>

#include <fstream>
#include <stdexcept>

namespace commprof::rank {

void GradDump::add(const std::vector<torch::Tensor>& params, Of of) {
    at::DisableRecordFunctionGuard notTheModel; // instrumentation, not ops to trace
    c10::List<at::Tensor> grads;
    for (const auto& p : params) {
        // An unused parameter's gradient stays undefined under find_unused_parameters: zeros,
        // as Python's None is read on the other side.
        const at::Tensor& t = of == Of::Values ? p : p.grad();
        grads.push_back(t.defined() ? t.detach().to(torch::kCPU).clone()
                                    : torch::zeros_like(p, torch::kCPU));
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
