// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Determinism capture: per-rank JSONL streams of tensor digests (fp_rank{R}.jsonl), for
// `commprof diff`. Two layers: "semantic" (bucket all-reduce input and output, gradients
// before the reduce, parameters after the optimizer step) and "op" (every ATen op's inputs
// and outputs). Nothing is installed unless asked for, so it costs nothing when off. It adds
// no collective and no cross-rank traffic.

#include "options.h"

#include <ATen/ATen.h>

#include <cstdio>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace commprof::rank {

class Fingerprinter {
public:
    static Fingerprinter& instance();

    // Opens OUT/fp_rank{R}.jsonl and registers the op-layer callback when asked for.
    void configure(const RankOptions& o);
    bool enabled() const { return file_ != nullptr; }
    void setIteration(int iteration);
    bool captureSemantic() const { return enabled() && semantic_ && inScope_; }
    // Collectives are recorded in either layer: they are where another rank's data enters,
    // and no ATen op sees them.
    bool captureCollectives() const { return enabled() && inScope_; }

    // A semantic record of tensors as a step left them (it has no inputs).
    void record(const std::string& name, const std::vector<at::Tensor>& outputs);
    // Buffers of all-reduces in flight: an op that reads one sees a value in motion.
    void collectiveStarted(const void* data);
    void collectiveFinished(const void* data);
    void close();

    // For records whose inputs and outputs are digested at different moments (a collective's
    // input at launch, its output at completion). Collective records carry collective=true:
    // their output depends on every rank's input.
    std::string tensorsJson(const std::vector<at::Tensor>& ts);
    void writeRecord(const std::string& name, const char* layer, const std::string& inputs,
                     const std::string& outputs, bool collective, const char* artifact);

private:
    friend struct FingerprintCallbacks;
    bool inflight(const void* data);

    RankOptions o_;
    std::FILE* file_ = nullptr;
    std::mutex mutex_;
    bool semantic_ = false;
    bool op_ = false;
    bool inScope_ = false;
    bool budgetHit_ = false;
    int iteration_ = 0;
    long long seq_ = 0;
    long long bytes_ = 0;
    std::unordered_map<std::string, int> occurrences_;
    std::unordered_set<const void*> inflight_;
    bool perturbed_ = false;
};

// Prints a JSON object from --digest-selftest: the digest under different thread counts, and
// of a row permutation.
std::string digestSelftestJson();

} // namespace commprof::rank
