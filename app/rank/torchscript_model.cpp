// SPDX-License-Identifier: GPL-3.0-or-later
#include "models.h"

#include "archive_bounds.h"
#include "c10d_compat.h"
#include "spec/mapped.h"
#include "spec/model_families.h"

#include <torch/script.h>

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace commprof::rank {
namespace {

// An interpreter error is a TorchScript traceback that ends in the op's own "RuntimeError: ..."
// line: that line is the reason.
std::string reasonOf(const std::string& what) {
    const auto at = what.rfind("Error: ");
    if (what.rfind("The following operation failed in the TorchScript interpreter", 0) != 0 ||
        at == std::string::npos) {
        return firstLine(what);
    }
    const auto start = what.rfind('\n', at);
    return firstLine(what.substr(start == std::string::npos ? 0 : start + 1));
}

std::string shapeText(c10::IntArrayRef sizes) {
    std::string s = "[";
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        s += (i ? ", " : "") + std::to_string(sizes[i]);
    }
    return s + "]";
}

std::string inputText(const RankOptions& o) {
    return o.tokens > 0 ? "token ids [batch, " + std::to_string(o.tokens) + "] below " +
                              std::to_string(o.vocab)
                        : "float images [batch, " + shapeText(o.inputShape).substr(1);
}

// The parameters of nn.Embedding / nn.EmbeddingBag submodules scripted with sparse=True: told
// before any collective, where DDP would fail at the first backward (kSparseGradientReason).
std::vector<std::string> sparseGradientParameters(const torch::jit::Module& module) {
    std::vector<std::string> names;
    for (const auto& sub : module.named_modules()) {
        const auto type = sub.value.type();
        const std::string kind = type->name() ? type->name()->name() : "";
        if ((kind != "Embedding" && kind != "EmbeddingBag") || !type->hasConstant("sparse")) {
            continue;
        }
        const c10::IValue sparse = type->getConstant("sparse");
        if (!sparse.isBool() || !sparse.toBool()) {
            continue;
        }
        for (const auto& p : sub.value.named_parameters(/*recurse=*/false)) {
            names.push_back((sub.name.empty() ? "" : sub.name + ".") + p.name);
        }
    }
    return names;
}

// The description beside the module is what plan sized the cell by and what `cells` shows:
// one that disagrees with the module (another export's, or edited) is refused before training.
void checkDescription(const RankOptions& o, const NamedTensors& parameters) {
    const auto total = double(countParameters(parameters));
    const bool paramsDiffer = o.describedParams >= 0 && total != o.describedParams;
    const bool tensorsDiffer =
        o.describedTensors >= 0 && std::size_t(o.describedTensors) != parameters.size();
    if (!paramsDiffer && !tensorsDiffer) {
        return;
    }
    const auto count = [](double n) { return std::to_string(static_cast<long long>(n)); };
    const std::string description = o.torchscript.substr(0, o.torchscript.rfind(".pt")) + ".json";
    std::string says = "its description " + description + " says ";
    says += o.describedParams >= 0 ? count(o.describedParams) + " parameters" : "";
    says += o.describedParams >= 0 && o.describedTensors >= 0 ? " in " : "";
    says += o.describedTensors >= 0 ? std::to_string(o.describedTensors) + " tensors" : "";
    throw ModelFileError(o.torchscript + ": the module holds " + count(total) + " parameters in " +
                         std::to_string(parameters.size()) + " tensors, " + says +
                         "; export them again together (commprof model export SPEC --out FILE.pt)");
}

} // namespace

TrainingModel loadTorchScript(const RankOptions& o, const torch::Device& device) {
    const std::string& file = o.torchscript;
    struct stat st {};
    if (::stat(file.c_str(), &st) != 0) {
        throw ModelFileError(file + ": cannot open the TorchScript file: " + std::strerror(errno));
    }
    if (!S_ISREG(st.st_mode)) {
        throw ModelFileError(file + ": not a regular file");
    }
    if (const std::string why = archiveTooLarge(file); !why.empty()) {
        throw ModelFileError(why);
    }
    auto module = std::make_shared<torch::jit::Module>();
    try {
        *module = torch::jit::load(file, device);
    } catch (const std::exception& e) {
        // A zip without TorchScript's records, a cut-off archive, or text: jit::load's reason.
        throw ModelFileError(
            file + ": not a TorchScript module (torch::jit::load: " + firstLine(e.what()) + ")");
    }
    if (!module->find_method("forward")) {
        throw ModelFileError(file + ": the module has no forward method");
    }
    module->train();
    if (const auto sparse = sparseGradientParameters(*module); !sparse.empty()) {
        throw ModelFileError(file + ": parameter '" + sparse.front() + "' " +
                             std::string(spec::kSparseGradientReason));
    }

    TrainingModel m;
    m.owner = module;
    const auto named = [](const auto& slot) { return std::make_pair(slot.name, slot.value); };
    m.parameters = spec::mapped<NamedTensors>(module->named_parameters(/*recurse=*/true), named);
    m.buffers = spec::mapped<NamedTensors>(module->named_buffers(/*recurse=*/true), named);
    checkDescription(o, m.parameters);
    m.forward = [module, file](const torch::Tensor& input) {
        c10::IValue out = module->forward({input});
        if (!out.isTensor()) {
            throw ModelFileError(file + ": forward returned " + out.tagKind() +
                                 ", expected one tensor");
        }
        return out.toTensor();
    };
    const std::int64_t tokens = o.tokens, vocab = o.vocab, classes = o.classes;
    const std::vector<std::int64_t> shape = o.inputShape;
    if (tokens > 0) {
        // One sequence of tokens + 1 ids per sample: the input is all but the last, the target
        // all but the first.
        m.makeBatch = [tokens, vocab, device](int batch, at::Generator& gen) {
            auto ids = torch::randint(0, vocab, {batch, tokens + 1}, gen, torch::kLong);
            auto x = ids.narrow(1, 0, tokens).contiguous();
            auto y = ids.narrow(1, 1, tokens).contiguous();
            return std::make_pair(x.to(device), y.to(device));
        };
        m.loss = [vocab](const torch::Tensor& output, const torch::Tensor& target) {
            return torch::nn::functional::cross_entropy(output.reshape({-1, vocab}),
                                                        target.reshape({-1}));
        };
        m.description = "torchscript " + file + ": " + std::to_string(tokens) + " tokens below " +
                        std::to_string(vocab) + ", next-token loss";
    } else {
        m.makeBatch = [shape, classes, device](int batch, at::Generator& gen) {
            std::vector<std::int64_t> sizes{batch};
            sizes.insert(sizes.end(), shape.begin(), shape.end());
            auto x = torch::randn(sizes, gen, torch::kFloat);
            auto y = torch::randint(0, classes, {batch}, gen, torch::kLong);
            return std::make_pair(x.to(device), y.to(device));
        };
        m.loss = [](const torch::Tensor& output, const torch::Tensor& target) {
            return torch::nn::functional::cross_entropy(output, target);
        };
        m.description = "torchscript " + file + ": input " + shapeText(shape) + ", " +
                        std::to_string(classes) + " classes";
    }
    return m;
}

void checkOutput(const RankOptions& o, const torch::Tensor& output, int batch) {
    const std::vector<std::int64_t> want = o.tokens > 0
                                               ? std::vector<std::int64_t>{batch, o.tokens, o.vocab}
                                               : std::vector<std::int64_t>{batch, o.classes};
    if (output.sizes().vec() != want || !output.is_floating_point()) {
        throw ModelFileError(o.torchscript + ": forward on " + inputText(o) + " returned " +
                             std::string(c10::toString(output.scalar_type())) +
                             shapeText(output.sizes()) + ", expected float " + shapeText(want));
    }
}

ModelFileError forwardFailure(const RankOptions& o, const std::exception& e) {
    if (const auto* known = dynamic_cast<const ModelFileError*>(&e)) {
        return *known;
    }
    return ModelFileError(o.torchscript + ": forward does not accept " + inputText(o) + ": " +
                          reasonOf(e.what()));
}

} // namespace commprof::rank
