// SPDX-License-Identifier: GPL-3.0-or-later
#include "fingerprint.h"

#include "json_writer.h"
#include "spec/rank_contract.h"

#include <ATen/record_function.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace commprof::rank {
namespace {

// Odd 64-bit constants (golden ratio and splitmix64's).
constexpr std::int64_t kGolden = static_cast<std::int64_t>(0x9E3779B97F4A7C15ULL);
constexpr std::int64_t kMixA = static_cast<std::int64_t>(0xBF58476D1CE4E5B9ULL);
constexpr std::int64_t kMixB = static_cast<std::int64_t>(0x94D049BB133111EBULL);

std::string hex(std::uint64_t v) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
    return buf;
}

// One word's contribution: a splitmix64-style mix of its value and its position. int64
// arithmetic wraps modulo 2^64 and >> is an arithmetic shift, exactly as torch's int64 ops do,
// so the CPU loop and the tensor-op path below give identical digests.
inline std::int64_t mix(std::int64_t word, std::int64_t position) {
    std::uint64_t x = std::uint64_t(word) * std::uint64_t(kGolden) +
                      std::uint64_t(position + 1) * std::uint64_t(kMixA);
    x ^= std::uint64_t(std::int64_t(x) >> 31);
    x *= std::uint64_t(kMixB);
    x ^= std::uint64_t(std::int64_t(x) >> 29);
    return std::int64_t(x);
}

// Tensors on the CPU: a plain loop over the bytes where they lie.
std::uint64_t digestOnCpu(const at::Tensor& t, std::int64_t nbytes) {
    std::uint64_t sum = 0;
    const auto* bytes = static_cast<const std::uint8_t*>(t.data_ptr());
    if (nbytes % 4 == 0) {
        for (std::int64_t i = 0; i < nbytes / 4; ++i) {
            std::int32_t word;
            std::memcpy(&word, bytes + 4 * i, 4);
            sum += std::uint64_t(mix(word, i));
        }
    } else {
        for (std::int64_t i = 0; i < nbytes; ++i) {
            sum += std::uint64_t(mix(bytes[i], i));
        }
    }
    return sum;
}

// Tensors on a device: the same arithmetic as tensor ops, so only the sum reaches the host.
std::uint64_t digestWithTensorOps(const at::Tensor& t, std::int64_t nbytes) {
    const at::Tensor flat = t.view({-1});
    at::Tensor words = nbytes % 4 == 0 ? flat.view(at::kInt) : flat.view(at::kByte);
    words = words.to(at::kLong);
    const at::Tensor index = at::arange(words.numel(), words.options());
    at::Tensor x = words * kGolden + (index + 1) * kMixA;
    x = at::bitwise_xor(x, at::bitwise_right_shift(x, 31));
    x = x * kMixB;
    x = at::bitwise_xor(x, at::bitwise_right_shift(x, 29));
    return static_cast<std::uint64_t>(x.sum().item<std::int64_t>());
}

// Order-independent, position-aware digest of a tensor's bytes, computed where the tensor
// lives; only one 64-bit scalar per tensor (or per chunk) reaches the host. Integer sums wrap
// modulo 2^64, which is associative and commutative: any reduction order gives the same value.
// The self-test forces the tensor-op path on the CPU too.
std::uint64_t digestBytes(const at::Tensor& input, bool forceTensorOps = false) {
    at::DisableRecordFunctionGuard noRecording; // the digest's own ops are not ops of the model
    at::NoGradGuard noGrad;
    if (!input.defined() || input.numel() == 0) {
        return 0;
    }
    const at::Tensor t = input.contiguous();
    const std::int64_t nbytes = t.numel() * std::int64_t(t.element_size());
    const std::uint64_t sum =
        (t.is_cpu() && !forceTensorOps) ? digestOnCpu(t, nbytes) : digestWithTensorOps(t, nbytes);
    return sum ^ static_cast<std::uint64_t>(nbytes);
}

std::string digestHex(const at::Tensor& t, int chunkDim) {
    if (chunkDim < 0 || !t.defined() || t.dim() <= chunkDim) {
        return hex(digestBytes(t));
    }
    std::string out;
    for (std::int64_t i = 0; i < t.size(chunkDim); ++i) {
        out += (i ? ":" : "") + hex(digestBytes(t.select(chunkDim, i)));
    }
    return out;
}

} // namespace

struct FingerprintCallbacks {
    static std::unique_ptr<at::ObserverContext> onStart(const at::RecordFunction& fn) {
        Fingerprinter& fp = Fingerprinter::instance();
        if (!fp.inScope_ || !fp.op_) {
            return nullptr;
        }
        if (!fp.enabled()) {
            // An untraced rank only plants the perturbation: no digests.
            return fp.o_.perturbOp == fn.name() && !fp.perturbed_ ? std::make_unique<OpContext>()
                                                                  : nullptr;
        }
        auto ctx = std::make_unique<OpContext>();
        std::vector<at::Tensor> inputs;
        for (const c10::IValue& v : fn.inputs()) {
            if (v.isTensor()) {
                const at::Tensor& t = v.toTensor();
                ctx->inflight = ctx->inflight || (t.defined() && fp.inflight(t.storage().data()));
                inputs.push_back(t);
            }
        }
        // Digested now: an in-place op changes its inputs before it ends.
        ctx->inputs = fp.tensorsJson(inputs);
        return ctx;
    }

    static void onEnd(const at::RecordFunction& fn, at::ObserverContext* raw) {
        if (!raw) {
            return;
        }
        Fingerprinter& fp = Fingerprinter::instance();
        auto* ctx = static_cast<OpContext*>(raw);
        std::vector<at::Tensor> outputs;
        for (const c10::IValue& v : fn.outputs()) {
            if (v.isTensor()) {
                outputs.push_back(v.toTensor());
            }
        }
        const std::string name = fn.name();
        if (!fp.perturbed_ && !fp.o_.perturbOp.empty() && name == fp.o_.perturbOp &&
            fp.o_.perturbsRank(fp.o_.rank) && fp.iteration_ == fp.o_.perturbIter &&
            !outputs.empty() && outputs[0].is_floating_point() && outputs[0].numel() > 0) {
            // One ulp on the largest element (a ReLU would swallow a change to a negative one),
            // bypassing autograd's version counter: a planted origin.
            at::DisableRecordFunctionGuard noRecording;
            at::NoGradGuard noGrad;
            at::Tensor data = outputs[0].variable_data().view({-1});
            const std::int64_t where = data.argmax().item<std::int64_t>();
            const double v = data[where].item<double>();
            const double bumped =
                outputs[0].scalar_type() == at::kFloat
                    ? double(std::nextafter(float(v), std::numeric_limits<float>::infinity()))
                    : std::nextafter(v, std::numeric_limits<double>::infinity());
            data[where].fill_(bumped);
            fp.perturbed_ = true;
        }
        const bool uninitialized = name.rfind("aten::empty", 0) == 0 || name == "aten::new_empty";
        fp.writeRecord(name, "op", ctx->inputs, fp.tensorsJson(outputs), false,
                       uninitialized   ? "uninitialized"
                       : ctx->inflight ? "inflight_collective"
                                       : nullptr);
    }

    struct OpContext : at::ObserverContext {
        std::string inputs; // their digests, as tensorsJson writes them
        bool inflight = false;
    };
};

Fingerprinter& Fingerprinter::instance() {
    static Fingerprinter fp;
    return fp;
}

void Fingerprinter::configure(const RankOptions& o) {
    if (!o.fpSemantic && !o.fpOp) {
        return;
    }
    o_ = o;
    const auto observeOps = [] {
        at::addGlobalCallback(
            at::RecordFunctionCallback(FingerprintCallbacks::onStart, FingerprintCallbacks::onEnd)
                .needsInputs(true)
                .needsOutputs(true)
                .scopes({at::RecordScope::FUNCTION}));
    };
    if (!o.fpRanks.empty() &&
        std::find(o.fpRanks.begin(), o.fpRanks.end(), o.rank) == o.fpRanks.end()) {
        // Not a traced rank: capture nothing, but still plant a perturbation if asked.
        if (o.perturbsRank(o.rank)) {
            op_ = true;
            observeOps();
        }
        return;
    }
    const std::string path = o.outDir + "/" + spec::files::kFingerprint.of(o.rank);
    file_ = std::fopen(path.c_str(), "w");
    if (!file_) {
        throw std::runtime_error("cannot write " + path);
    }
    semantic_ = o.fpSemantic;
    op_ = o.fpOp || !o.perturbOp.empty();
    if (op_) {
        observeOps();
    }
    JsonWriter j;
    j.beginObject();
    j.field("header", true);
    j.field("rank", o.rank);
    j.field("world_size", o.worldSize);
    j.field("layers", std::string(o.fpSemantic ? "semantic" : "") +
                          (o.fpSemantic && o.fpOp ? "," : "") + (o.fpOp ? "op" : ""));
    j.field("digest",
            "sum64 of splitmix(word, index) over 4-byte words (or bytes), xor byte count");
    j.endObject();
    std::fprintf(file_, "%s\n", j.str().c_str());
}

void Fingerprinter::setIteration(int it) {
    std::lock_guard<std::mutex> lock(mutex_);
    iteration_ = it;
    occurrences_.clear();
    inScope_ =
        it >= o_.fpIterStart && it < o_.fpIterEnd && (it - o_.fpIterStart) % o_.fpIterEvery == 0;
    // The perturbation must land even outside the captured window.
    if (it == o_.perturbIter && o_.perturbsRank(o_.rank)) {
        inScope_ = true;
    }
}

bool Fingerprinter::inflight(const void* data) {
    std::lock_guard<std::mutex> lock(mutex_);
    return inflight_.count(data) > 0;
}

void Fingerprinter::collectiveStarted(const void* data) {
    std::lock_guard<std::mutex> lock(mutex_);
    inflight_.insert(data);
}

void Fingerprinter::collectiveFinished(const void* data) {
    std::lock_guard<std::mutex> lock(mutex_);
    inflight_.erase(data);
}

std::string Fingerprinter::tensorsJson(const std::vector<at::Tensor>& ts) {
    JsonWriter j;
    j.beginArray();
    for (const at::Tensor& t : ts) {
        j.beginObject();
        if (!t.defined()) {
            j.field("defined", false);
        } else {
            j.key("shape");
            j.intArray(t.sizes());
            j.field("dtype", std::string(c10::toString(t.scalar_type())));
            j.field("numel", std::int64_t(t.numel()));
            j.field("digest", digestHex(t, o_.fpChunkDim));
        }
        j.endObject();
    }
    j.endArray();
    return j.str();
}

void Fingerprinter::record(const std::string& name, const std::vector<at::Tensor>& outputs) {
    writeRecord(name, "semantic", tensorsJson({}), tensorsJson(outputs), false, nullptr);
}

void Fingerprinter::writeRecord(const std::string& name, const char* layer,
                                const std::string& inputs, const std::string& outputs,
                                bool collective, const char* artifact) {
    if (!file_) {
        return;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (budgetHit_) {
        return;
    }
    const std::string id =
        name + ":" + std::to_string(occurrences_[std::string(layer) + "/" + name]++);
    JsonWriter j;
    j.beginObject();
    j.field("seq", std::int64_t(seq_));
    j.field("id", id);
    j.field("iter", iteration_);
    j.field("layer", layer);
    j.field("name", name);
    if (collective) {
        j.field("collective", true);
    }
    if (artifact) {
        j.field("artifact", artifact);
    }
    j.fieldRaw("inputs", inputs);
    j.fieldRaw("outputs", outputs);
    j.endObject();
    const std::string line = j.str();
    if ((o_.fpMaxRecords >= 0 && seq_ >= o_.fpMaxRecords) ||
        (o_.fpMaxBytes >= 0 && bytes_ + (long long)line.size() > o_.fpMaxBytes)) {
        budgetHit_ = true;
        const std::string note = "{\"truncated\":true,\"records\":" + std::to_string(seq_) +
                                 ",\"bytes\":" + std::to_string(bytes_) + "}\n";
        std::fputs(note.c_str(), file_);
        return;
    }
    ++seq_;
    bytes_ += (long long)line.size() + 1;
    std::fprintf(file_, "%s\n", line.c_str());
}

void Fingerprinter::close() {
    if (file_) {
        std::fclose(file_);
        file_ = nullptr;
    }
}

std::string digestSelftestJson() {
    at::manual_seed(7);
    const at::Tensor t = at::randn({257, 129});
    const int threads = at::get_num_threads();
    // The reduction as tensor ops under two thread layouts (as on a device), and the CPU loop.
    at::set_num_threads(1);
    const std::uint64_t one = digestBytes(t, true);
    at::set_num_threads(std::max(2, threads));
    const std::uint64_t many = digestBytes(t, true);
    const std::uint64_t loop = digestBytes(t);
    const std::uint64_t viaChunks = digestBytes(t.clone().contiguous());
    const at::Tensor permuted = t.index_select(0, at::randperm(t.size(0)));
    const at::Tensor swapped = at::cat({t.slice(0, 1, 2), t.slice(0, 0, 1), t.slice(0, 2)}, 0);
    at::Tensor bumped = t.clone();
    bumped.view({-1})[0] =
        std::nextafter(bumped.view({-1})[0].item<float>(), std::numeric_limits<float>::infinity());
    JsonWriter j;
    j.beginObject();
    j.field("one_thread", hex(one));
    j.field("many_threads", hex(many));
    j.field("cpu_loop", hex(loop));
    j.field("threads", std::max(2, threads));
    j.field("clone", hex(viaChunks));
    j.field("row_permutation", hex(digestBytes(permuted)));
    j.field("two_rows_swapped", hex(digestBytes(swapped)));
    j.field("one_ulp", hex(digestBytes(bumped)));
    j.field("as_int32_view", hex(digestBytes(t.view(at::kInt))));
    j.endObject();
    return j.str() + "\n";
}

} // namespace commprof::rank
