// SPDX-License-Identifier: GPL-3.0-or-later
#include "rank_result.h"

#include "c10d_compat.h"
#include "hooks/hook_factory.h"
#include "json_writer.h"
#include "spec/rank_contract.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <stdexcept>

namespace commprof::rank {

std::int64_t peakHostBytes() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("VmHWM:", 0) == 0) {
            return std::stoll(line.substr(6)) * 1024;
        }
    }
    return 0;
}

void writeFileAtomically(const std::string& path, const std::string& content) {
    const std::string tmp = path + spec::files::kPartial;
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        throw std::runtime_error("cannot write " + tmp);
    }
    std::size_t done = 0;
    while (done < content.size()) {
        const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
        if (n <= 0) {
            ::close(fd);
            throw std::runtime_error("short write to " + tmp);
        }
        done += std::size_t(n);
    }
    ::fsync(fd);
    ::close(fd);
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        throw std::runtime_error("cannot rename " + tmp + " to " + path);
    }
}

namespace {

// docs/formats.md, "ddp_logging".
void writeDdpLogging(JsonWriter& j, const DdpLoggingResult& d, int recordFrom) {
    j.key("ddp_logging");
    j.beginObject();
    j.field("available", d.available);
    if (!d.reason.empty()) {
        j.field("reason", d.reason);
    }
    j.field("source", "c10d::Logger");
    j.field("timer", d.timer);
    j.field("sample_rule", "the Reducer's iterations 1-10, then every 100th "
                           "(kDDPRuntimeLoggingSampleRate); here 0-based");
    std::vector<std::int64_t> sampled, recorded;
    std::int64_t compute = 0, comm = 0, overlap = 0;
    for (const auto& s : d.samples) {
        sampled.push_back(s.iteration);
        if (s.iteration >= recordFrom) {
            recorded.push_back(s.iteration);
            compute += s.backwardComputeNs;
            comm += s.backwardCommNs;
            overlap += s.overlapNs;
        }
    }
    j.key("iterations_sampled");
    j.intArray(sampled);
    j.field("avg_forward_compute_time_ns", d.avgForwardComputeNs);
    j.field("avg_backward_compute_time_ns", d.avgBackwardComputeNs);
    j.field("avg_backward_comm_time_ns", d.avgBackwardCommNs);
    j.field("avg_backward_compute_comm_overlap_time_ns", d.avgOverlapNs);
    j.key("recorded_iterations_sampled");
    j.intArray(recorded);
    const auto n = std::int64_t(recorded.size());
    if (n > 0) {
        j.field("recorded_avg_backward_compute_time_ns", compute / n);
        j.field("recorded_avg_backward_comm_time_ns", comm / n);
        j.field("recorded_avg_backward_compute_comm_overlap_time_ns", overlap / n);
    }
    j.key("samples");
    j.beginArray();
    for (const auto& s : d.samples) {
        j.beginObject();
        j.field("iter", s.iteration);
        j.field("forward_compute_time_ns", s.forwardComputeNs);
        j.field("backward_compute_time_ns", s.backwardComputeNs);
        j.field("backward_comm_time_ns", s.backwardCommNs);
        j.field("backward_compute_comm_overlap_time_ns", s.overlapNs);
        j.endObject();
    }
    j.endArray();
    j.endObject();
}

// "model": what ran, as asked and as built.
void writeModel(JsonWriter& j, const RankResult& r) {
    const RankOptions& o = r.options;
    j.key("model");
    j.beginObject();
    j.field("name", o.model);
    j.field("family", o.family);
    j.field("params", r.actualParams);
    j.field("frozen_params", r.frozenParams);
    if (!o.torchscript.empty()) {
        j.field("torchscript", o.torchscript);
        j.key("input");
        j.beginObject();
        if (o.tokens > 0) {
            j.field("tokens", o.tokens);
            j.field("vocab", o.vocab);
        } else {
            j.key("shape");
            j.intArray(o.inputShape);
            j.field("classes", o.classes);
        }
        j.endObject();
    }
    j.field("requested_params", o.params);
    j.field("signature", r.signatureHash);
    j.field("description", r.modelDescription);
    j.endObject();
}

// "config": the DDP settings the rank ran with (PowerSGD's own where it ran).
void writeConfig(JsonWriter& j, const RankResult& r) {
    const RankOptions& o = r.options;
    j.key("config");
    j.beginObject();
    j.field("iterations", o.iterations);
    j.field("warmup", o.warmup);
    j.field("batch_size", o.batchSize);
    j.field("bucket_cap_mb", o.bucketCapMb);
    j.field("gradient_as_bucket_view", o.gradientAsBucketView);
    j.field("static_graph", o.staticGraph);
    j.field("find_unused_parameters", o.findUnusedParameters);
    j.field("first_bucket_mb", o.firstBucketMb);
    j.field("optimizer", o.optimizer);
    j.field("hook", o.hook);
    if (o.hook == "powersgd") {
        j.key("powersgd");
        j.beginObject();
        j.field("matrix_approximation_rank", o.powersgdRank);
        j.field("start_powerSGD_iter", o.powersgdStartIter);
        j.field("min_compression_rate", 2.0);
        j.field("use_error_feedback", true);
        j.field("warm_start", true);
        j.field("orthogonalization_epsilon", 0.0);
        j.field("random_seed", 0);
        j.field("batch_tensors_with_same_shape", false);
        j.field("numel_before_compression", r.powersgdNumelBefore);
        j.field("numel_after_compression", r.powersgdNumelAfter);
        j.field("compressed_buckets", r.powersgdCompressedBuckets);
        j.endObject();
    }
    j.field("seed", o.seed);
    j.field("threads", o.threads);
    j.field("intra_op_threads", r.intraOpThreads);
    j.endObject();
}

// "parameters", "initial_buckets", "final_buckets": the gradients and how DDP bucketed them.
void writeLayout(JsonWriter& j, const RankResult& r) {
    j.key("parameters");
    j.beginArray();
    for (const auto& p : r.params) {
        j.beginObject();
        j.field("name", p.name);
        j.key("shape");
        j.intArray(p.shape);
        j.field("bytes", p.bytes);
        j.endObject();
    }
    j.endArray();
    j.key("initial_buckets");
    j.beginArray();
    for (const auto& b : r.initialBuckets) {
        j.intArray(b);
    }
    j.endArray();
    j.key("final_buckets");
    j.beginArray();
    for (const auto& b : r.finalBuckets) {
        j.intArray(b);
    }
    j.endArray();
}

// "iterations": each step's phases and gradient checksum.
void writeIterations(JsonWriter& j, const RankResult& r) {
    j.key("iterations");
    j.beginArray();
    for (const auto& it : r.iterations) {
        j.beginObject();
        j.field("iter", it.iter);
        j.field("forward_ms", it.forwardMs);
        j.field("backward_ms", it.backwardMs);
        j.field("optimizer_ms", it.optimizerMs);
        j.field("step_ms", it.stepMs);
        j.field("grad_checksum", it.gradChecksum);
        j.endObject();
    }
    j.endArray();
}

// "buckets": each recorded bucket's collective, by iteration.
void writeBuckets(JsonWriter& j, const RankResult& r) {
    j.key("buckets");
    j.beginArray();
    for (const auto& b : r.buckets) {
        j.beginObject();
        j.field("iter", b.iteration);
        j.field("index", b.index);
        j.field("bytes", b.bytes);
        j.field("wire_bytes", b.wireBytes);
        j.field("nparams", b.nparams);
        j.field("start_ns", b.startNs);
        j.field("end_ns", b.endNs);
        j.endObject();
    }
    j.endArray();
}

} // namespace

std::string rankResultJson(const RankResult& r) {
    const RankOptions& o = r.options;
    JsonWriter j;
    j.beginObject();
    j.field("schema_version", kRankSchemaVersion);
    j.field("producer", "commprof-rank");
    j.field("cell_id", o.cellId);
    j.field("rank", o.rank);
    j.field("local_rank", o.localRank);
    j.field("world_size", o.worldSize);
    j.field("backend", o.backend);
    j.field("device", o.device);
    j.field("device_name", r.deviceName);
    j.field("layer", o.layer);
    j.field("interconnect", r.interconnect);
    writeModel(j, r);
    j.field("torch_version", std::string(TORCH_VERSION));
    j.field("nccl_version", ncclVersionString());
    writeConfig(j, r);
    writeLayout(j, r);
    writeIterations(j, r);
    j.field("record_from_iteration", o.recordFromIteration);
    writeBuckets(j, r);
    j.key("bucket_counts_seen");
    j.intArray(r.bucketCountsSeen);
    j.field("rebuild_detected", r.rebuildDetected);
    j.field("grad_checksums_agree", r.gradChecksumsAgree);
    j.field("grad_checksum_note", r.gradChecksumNote);
    j.field("param_checksum", r.paramChecksum);
    j.field("peak_host_bytes", r.peakHostBytes);
    j.field("peak_device_bytes", r.peakDeviceBytes);
    j.field("clock", "CLOCK_MONOTONIC");
    if (!r.traceFile.empty()) {
        j.field("trace_file", r.traceFile);
    }
    j.field("wall_s", r.wallS);
    writeDdpLogging(j, r.ddpLogging, o.recordFromIteration);
    j.endObject();
    return j.str() + "\n";
}

std::string versionJson() {
    JsonWriter j;
    j.beginObject();
    j.field("torch_version", std::string(TORCH_VERSION));
    j.field("cuda", torch::cuda::is_available());
    j.field("cuda_build", kHasCudaBuild);
    j.key("cuda_archs");
    j.beginArray();
#ifdef TORCH_CUDA_ARCH_LIST_STR
    j.value(TORCH_CUDA_ARCH_LIST_STR);
#endif
    j.endArray();
    j.field("gloo", true);
    j.field("nccl", kHasNccl);
    j.field("nccl_version", ncclVersionString());
    j.field("kineto", libtorchHasKineto());
    j.key("comm_hooks");
    j.beginArray();
    for (const auto& name : hookNames()) {
        j.value(name);
    }
    j.endArray();
    j.key("comm_hooks_refused");
    j.beginObject();
    j.key("gloo_cpu");
    j.beginObject();
    for (const auto& [hook, reason] : glooCpuRefusals()) {
        j.field(hook, reason);
    }
    j.endObject();
    j.endObject();
    j.endObject();
    return j.str() + "\n";
}

} // namespace commprof::rank
