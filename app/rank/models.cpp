// SPDX-License-Identifier: GPL-3.0-or-later
#include "models.h"

#include "spec/mapped.h"
#include "spec/model_families.h"

#include <cmath>
#include <stdexcept>

namespace commprof::rank {
namespace {

using dims::kBlocks;
using dims::kHeadDim;
using dims::kMlpDepth;
using dims::kSeqLen;

// Hidden layers h x h, then an output layer sized to land on the requested count.
struct MlpImpl : torch::nn::Module {
    MlpImpl(std::int64_t width, std::int64_t outWidth) {
        for (int i = 0; i < kMlpDepth; ++i) {
            layers.push_back(
                register_module("fc" + std::to_string(i), torch::nn::Linear(width, width)));
        }
        head = register_module("head", torch::nn::Linear(width, outWidth));
    }
    torch::Tensor forward(torch::Tensor x) {
        for (auto& l : layers) {
            x = torch::relu(l->forward(x));
        }
        return head->forward(x);
    }
    std::vector<torch::nn::Linear> layers;
    torch::nn::Linear head{nullptr};
};

struct BlockImpl : torch::nn::Module {
    BlockImpl(std::int64_t d) : heads(d / kHeadDim) {
        ln1 = register_module("ln1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})));
        qkv = register_module("qkv", torch::nn::Linear(d, 3 * d));
        proj = register_module("proj", torch::nn::Linear(d, d));
        ln2 = register_module("ln2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})));
        up = register_module("up", torch::nn::Linear(d, 4 * d));
        down = register_module("down", torch::nn::Linear(4 * d, d));
    }
    torch::Tensor forward(torch::Tensor x) {
        const auto b = x.size(0), s = x.size(1), d = x.size(2);
        auto parts = qkv->forward(ln1->forward(x))
                         .view({b, s, 3, heads, d / heads})
                         .permute({2, 0, 3, 1, 4});
        auto att = torch::softmax(
            torch::matmul(parts[0], parts[1].transpose(-2, -1)) / std::sqrt(double(d / heads)), -1);
        auto y = torch::matmul(att, parts[2]).transpose(1, 2).reshape({b, s, d});
        x = x + proj->forward(y);
        return x + down->forward(torch::gelu(up->forward(ln2->forward(x))));
    }
    std::int64_t heads;
    torch::nn::LayerNorm ln1{nullptr}, ln2{nullptr};
    torch::nn::Linear qkv{nullptr}, proj{nullptr}, up{nullptr}, down{nullptr};
};
TORCH_MODULE(Block);

struct TransformerImpl : torch::nn::Module {
    TransformerImpl(std::int64_t d, std::int64_t outWidth) {
        for (int i = 0; i < kBlocks; ++i) {
            blocks.push_back(register_module("block" + std::to_string(i), Block(d)));
        }
        head = register_module("head", torch::nn::Linear(d, outWidth));
    }
    torch::Tensor forward(torch::Tensor x) {
        for (auto& b : blocks) {
            x = b->forward(x);
        }
        return head->forward(x);
    }
    std::vector<Block> blocks;
    torch::nn::Linear head{nullptr};
};

// The module's tensors and forward, and random batches of inputs `width` wide and targets `out`
// wide (of `seq` tokens each where seq > 0).
template <typename Net>
void adopt(TrainingModel& m, const std::shared_ptr<Net>& net, std::int64_t seq, std::int64_t width,
           std::int64_t out, const torch::Device& device) {
    net->to(device);
    m.owner = net;
    const auto named = [](const auto& item) { return std::make_pair(item.key(), item.value()); };
    m.parameters = spec::mapped<NamedTensors>(net->named_parameters(), named);
    m.buffers = spec::mapped<NamedTensors>(net->named_buffers(), named);
    m.forward = [net](const torch::Tensor& x) { return net->forward(x); };
    m.makeBatch = [seq, width, out, device](int batch, at::Generator& gen) {
        const auto shape = [&](std::int64_t w) {
            return seq > 0 ? std::vector<std::int64_t>{batch, seq, w}
                           : std::vector<std::int64_t>{batch, w};
        };
        auto x = torch::randn(shape(width), gen, torch::kFloat);
        auto y = torch::randn(shape(out), gen, torch::kFloat);
        return std::make_pair(x.to(device), y.to(device));
    };
}

} // namespace

std::int64_t countParameters(const NamedTensors& tensors) {
    std::int64_t n = 0;
    for (const auto& [name, p] : tensors) {
        n += p.numel();
    }
    return n;
}

TrainingModel makeModel(const std::string& family, double params, const torch::Device& device) {
    TrainingModel m;
    const spec::ModelFamily* known = spec::findModelFamily(family);
    if (!known) {
        throw std::invalid_argument("unknown model family '" + family + "' (" +
                                    spec::modelFamilyNames() + ")");
    }
    const std::string prefix = family + ": ";
    const auto shape = known->dims(params);
    const std::int64_t h = shape.width, d = shape.width, out = shape.outWidth;
    if (family == "mlp") {
        adopt(m, std::make_shared<MlpImpl>(h, out), 0, h, out, device);
        m.description = prefix + std::to_string(kMlpDepth) + " x Linear(" + std::to_string(h) +
                        ") + head(" + std::to_string(out) + ")";
    } else if (family == "transformer") {
        adopt(m, std::make_shared<TransformerImpl>(d, out), kSeqLen, d, out, device);
        m.description = prefix + std::to_string(kBlocks) + " blocks, d=" + std::to_string(d) +
                        ", seq " + std::to_string(kSeqLen) + ", head(" + std::to_string(out) + ")";
    } else {
        throw std::invalid_argument("unknown model family '" + family + "'");
    }
    m.loss = [](const torch::Tensor& output, const torch::Tensor& target) {
        return torch::mse_loss(output, target);
    };
    return m;
}

} // namespace commprof::rank
