// SPDX-License-Identifier: GPL-3.0-or-later
#include "collective_sweep.h"

#include "bucket_timer.h"
#include "c10d_compat.h"
#include "json_writer.h"
#include "process_group.h"
#include "rank_result.h"
#include "spec/rank_contract.h"

#include <ATen/record_function.h>

#include <cstdio>

namespace commprof::rank {
namespace {

// The elements of one rank's tensors for a message of `bytes` in nccl-tests' terms: all_gather's
// size is the gathered output, reduce_scatter's the input; each rank holds 1/n of it.
std::int64_t elementsPerRank(const std::string& kind, std::int64_t bytes, int world) {
    const std::int64_t total = std::max<std::int64_t>(1, bytes / 4);
    return kind == "all_gather" || kind == "reduce_scatter" ? total / world : total;
}

// Launches one collective of `kind` and waits for it.
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

void emit(const std::string& line) {
    std::fputs(line.c_str(), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
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

// What the sweep file says of the whole sweep, before its kinds.
void writeHeader(JsonWriter& j, const RankOptions& o) {
    j.field("schema", kRankSchemaVersion);
    j.field("rank", o.rank);
    j.field("world_size", o.worldSize);
    j.field("backend", o.backend);
    j.field("device", o.device);
    j.field("layer", o.layer);
    j.field("cell_id", o.cellId);
    j.field("dtype", "float32");
    j.field("warmup", o.sweepWarmup);
    j.field("iterations", o.sweepIterations);
    j.field("max_bytes", o.sweepMaxBytes);
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
        const std::string what = e.what();
        unsupported = what.substr(0, what.find('\n'));
        return {};
    }
    return timesUs;
}

// One kind's sizes, from 8 B doubling to --sweep-max-bytes, each an object of the bytes moved
// and its times; the sizes stop at the first the backend refuses.
void sweepKind(JsonWriter& j, const SweepGroup& g, const std::string& kind, const RankOptions& o) {
    j.beginObject();
    j.field("kind", kind);
    j.key("sizes");
    j.beginArray();
    std::string unsupported;
    bool measuredAny = false; // the first size launched may be past 8 B (8 B over 3 ranks)
    for (std::int64_t bytes = 8; bytes <= o.sweepMaxBytes && unsupported.empty(); bytes *= 2) {
        const std::int64_t n = elementsPerRank(kind, bytes, o.worldSize);
        if (n < 1) {
            continue; // fewer bytes than ranks: no message per rank
        }
        const std::vector<double> timesUs = timeSize(g, kind, n, o, measuredAny, unsupported);
        if (!unsupported.empty()) {
            break;
        }
        measuredAny = true;
        const std::int64_t actual =
            kind == "all_gather" || kind == "reduce_scatter" ? n * 4 * o.worldSize : n * 4;
        j.beginObject();
        j.field("bytes", actual);
        j.key("times_us");
        j.beginArray();
        for (double t : timesUs) {
            j.value(t);
        }
        j.endArray();
        j.endObject();
        emitProgress(o, kind, actual);
    }
    j.endArray();
    if (!unsupported.empty()) {
        j.field("unsupported", unsupported);
    }
    j.endObject();
}

} // namespace

std::string runSweep(const RankOptions& o) {
    at::DisableRecordFunctionGuard untraced;
    const RankGroup group = joinGroup(o); // the store lives as long as the group
    const torch::Device device =
        o.device == "cuda" ? torch::Device(torch::kCUDA, o.localRank) : torch::Device(torch::kCPU);
    const SweepGroup g{group.pg, device,
                       torch::TensorOptions().dtype(torch::kFloat).device(device)};
    JsonWriter j;
    j.beginObject();
    writeHeader(j, o);
    j.key("kinds");
    j.beginArray();
    for (const std::string& kind : o.sweepKinds) {
        sweepKind(j, g, kind, o);
    }
    j.endArray();
    // What the plan's sweep buffer term is calibrated against (commprof calibrate).
    j.field("peak_host_bytes", peakHostBytes());
    j.endObject();
    group.pg->barrier()->wait();
    const std::string path = o.outDir + "/" + spec::files::kSweep.of(o.rank);
    writeFileAtomically(path, j.str());
    return path;
}

} // namespace commprof::rank
