// SPDX-License-Identifier: GPL-3.0-or-later
#include "bucket_timer.h"
#include "c10d_compat.h"
#include "field_writer.h"
#include "rank_result.h"
#include "rendezvous.h"
#include "spec/mapped.h"
#include "spec/rank_contract.h"

#include <ATen/record_function.h>

namespace commprof::rank {
namespace {

// The elements of one rank's tensors for a message of `bytes` in nccl-tests' terms: all_gather's
// size is the gathered output, reduce_scatter's the input; each rank holds 1/n of it.
std::int64_t elementsPerRank(const std::string& kind, std::int64_t bytes, int world) {
    const std::int64_t total = std::max<std::int64_t>(1, bytes / 4);
    return kind == "all_gather" || kind == "reduce_scatter" ? total / world : total;
}

void runOnce(c10d::ProcessGroup& pg, const std::string& kind, std::vector<at::Tensor>& one,
             std::vector<std::vector<at::Tensor>>& many) {
    if (kind == "all_reduce") {
        pg.allreduce(one)->wait();
    } else if (kind == "broadcast") {
        pg.broadcast(one)->wait();
    } else if (kind == "all_gather") {
        pg.allgather(many, one)->wait();
    } else { // reduce_scatter
        pg.reduce_scatter(one, many)->wait();
    }
}

// The launcher's progress line for one size measured.
void emitProgress(const RankOptions& o, const std::string& kind, std::int64_t bytes) {
    JsonWriter p;
    p.beginObject();
    p.field(spec::progress::kEvent, spec::progress::kSweep);
    p.field(spec::progress::kRank, o.rank);
    p.field(spec::progress::kKind, kind);
    p.field(spec::progress::kBytes, bytes);
    p.endObject();
    emit(p.str());
}

// What the sweep file says of the whole sweep, before its kinds; the peaks at its end.
results::SweepHeader headerOf(const RankOptions& o, const torch::Device& device) {
    results::SweepHeader h;
    h.schema = kRankSchemaVersion;
    h.rank = o.rank;
    h.worldSize = o.worldSize;
    h.backend = o.backend;
    h.device = o.device;
    h.layer = o.layer;
    h.cellId = o.cellId;
    h.dtype = "float32";
    h.warmup = o.sweepWarmup;
    h.iterations = o.sweepIterations;
    h.maxBytes = o.sweepMaxBytes;
    // What the plan's sweep buffer terms are calibrated against (commprof calibrate).
    h.peakHostBytes = double(peakHostBytes());
    h.peakDeviceBytes = double(peakDeviceBytes(device));
    return h;
}

// The ranks' common stage: one process group, the device and the tensors' options.
struct SweepGroup {
    const ProcessGroupPtr& pg;
    torch::Device device;
    torch::TensorOptions options;
};

// One message size of `kind`, n elements a rank: warmup then timed repetitions, each after a
// barrier so that every rank starts it together. A backend without this collective (gloo in
// libtorch 1.13 has no reduce_scatter) refuses its first launch on every rank alike: then
// `unsupported` says so and nothing is returned. Any later failure is a failed run.
std::vector<double> timeSize(const SweepGroup& g, const std::string& kind, std::int64_t n,
                             const RankOptions& o, bool measuredAny, std::string& unsupported) {
    std::vector<at::Tensor> one{torch::ones({n}, g.options)};
    // The gathered side only where the kind has one: the plan budgets a sweep at three times
    // its largest message per rank (docs/feasibility.md).
    const bool gathered = kind == "all_gather" || kind == "reduce_scatter";
    std::vector<std::vector<at::Tensor>> many(1);
    for (int r = 0; gathered && r < o.worldSize; ++r) {
        many[0].push_back(torch::ones({n}, g.options));
    }
    std::vector<double> timesUs;
    try {
        for (int it = 0; it < o.sweepWarmup + o.sweepIterations; ++it) {
            g.pg->barrier()->wait();
            const std::int64_t t0 = monotonicNs();
            runOnce(*g.pg, kind, one, many);
            if (g.device.is_cuda()) {
                torch::cuda::synchronize(g.device.index());
            }
            if (it >= o.sweepWarmup) {
                timesUs.push_back(double(monotonicNs() - t0) / 1000.0);
            }
        }
    } catch (const c10::Error& e) {
        if (measuredAny || !timesUs.empty()) {
            throw;
        }
        unsupported = firstLine(e.what());
        return {};
    }
    return timesUs;
}

// One kind's sizes, from 8 B doubling to --sweep-max-bytes, each the bytes moved and its times;
// the sizes stop at the first the backend refuses.
results::SweepKindRecord sweepKind(const SweepGroup& g, const std::string& kind,
                                   const RankOptions& o) {
    results::SweepKindRecord out;
    out.kind = kind;
    bool measuredAny = false; // the first size launched may be past 8 B (8 B over 3 ranks)
    for (std::int64_t bytes = 8; bytes <= o.sweepMaxBytes; bytes *= 2) {
        const std::int64_t n = elementsPerRank(kind, bytes, o.worldSize);
        if (n < 1) {
            continue; // fewer bytes than ranks: no message per rank
        }
        std::vector<double> timesUs = timeSize(g, kind, n, o, measuredAny, out.unsupported);
        if (!out.unsupported.empty()) {
            break;
        }
        measuredAny = true;
        const std::int64_t actual =
            kind == "all_gather" || kind == "reduce_scatter" ? n * 4 * o.worldSize : n * 4;
        out.sizes.push_back({actual, std::move(timesUs)});
        emitProgress(o, kind, actual);
    }
    return out;
}

} // namespace

std::string runSweep(const RankOptions& o) {
    at::DisableRecordFunctionGuard untraced;
    const RankGroup group = joinGroup(o); // the store lives as long as the group
    const torch::Device device =
        o.device == "cuda" ? torch::Device(torch::kCUDA, o.localRank) : torch::Device(torch::kCPU);
    const SweepGroup g{group.pg, device,
                       torch::TensorOptions().dtype(torch::kFloat).device(device)};
    const auto kinds = spec::mapped<std::vector<results::SweepKindRecord>>(
        o.sweepKinds, [&](const std::string& kind) { return sweepKind(g, kind, o); });
    namespace k = results::rank_keys;
    JsonWriter j;
    j.beginObject();
    writeFields(j, results::sweepHeaderFields(), headerOf(o, device));
    j.beginArray(k::kKinds);
    for (const results::SweepKindRecord& kind : kinds) {
        j.beginObject();
        writeFields(j, results::sweepKindFields(), kind);
        writeRecords(j, k::kSizes, results::sweepSizeFields(), kind.sizes);
        j.endObject();
    }
    j.endArray();
    j.endObject();
    group.pg->barrier()->wait();
    const std::string path = o.outDir + "/" + spec::files::kSweep.of(o.rank);
    writeFileAtomically(path, j.str());
    return path;
}

} // namespace commprof::rank
