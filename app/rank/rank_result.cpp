// SPDX-License-Identifier: GPL-3.0-or-later
#include "rank_result.h"

#include "c10d_compat.h"
#include "field_writer.h"
#include "hooks/hook_factory.h"
#include "spec/mapped.h"
#include "spec/rank_contract.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#ifdef USE_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace commprof::rank {

std::int64_t peakHostBytes() {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);) {
        if (line.rfind("VmHWM:", 0) == 0) {
            return std::stoll(line.substr(6)) * 1024;
        }
    }
    return 0;
}

void emit(const std::string& line) {
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
}

std::int64_t peakDeviceBytes(const c10::Device& device) {
#ifdef USE_CUDA
    if (device.is_cuda()) {
        const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(device.index());
        return stats
            .reserved_bytes[std::size_t(c10::cuda::CUDACachingAllocator::StatType::AGGREGATE)]
            .peak;
    }
#endif
    (void)device;
    return 0;
}

void writeFileAtomically(const std::string& path, const std::string& content) {
    const std::string tmp = path + spec::files::kPartial;
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        throw std::runtime_error("cannot write " + tmp);
    }
    for (std::size_t done = 0; done < content.size();) {
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

// CPU time of this process, user and system, over all its threads.
double cpuSeconds() {
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    const auto s = [](const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; };
    return s(u.ru_utime) + s(u.ru_stime);
}

// The writer's values of the rank file's scalars.
results::RankHeader headerOf(const RankResult& r) {
    const RankOptions& o = r.options;
    results::RankHeader h;
    h.schemaVersion = kRankSchemaVersion;
    h.producer = "commprof-rank";
    h.cellId = o.cellId;
    h.rank = o.rank;
    h.localRank = o.localRank;
    h.worldSize = o.worldSize;
    h.backend = o.backend;
    h.device = o.device;
    h.deviceName = r.deviceName;
    h.layer = o.layer;
    h.interconnect = r.interconnect;
    h.modelName = o.model;
    h.family = o.family;
    h.params = double(r.actualParams);
    h.frozenParams = double(r.frozenParams);
    h.torchscript = o.torchscript;
    if (!o.torchscript.empty() && o.tokens > 0) {
        h.inputTokens = o.tokens;
        h.inputVocab = o.vocab;
    } else if (!o.torchscript.empty()) {
        h.inputShape = o.inputShape;
        h.inputClasses = o.classes;
    }
    h.requestedParams = o.params;
    h.modelSignature = r.signatureHash;
    h.description = r.modelDescription;
    h.torchVersion = TORCH_VERSION;
    h.ncclVersion = ncclVersionString();
    h.iterations = o.iterations;
    h.warmup = o.warmup;
    h.batchSize = o.batchSize;
    h.bucketCapMb = o.bucketCapMb;
    h.gradientAsBucketView = o.gradientAsBucketView;
    h.staticGraph = o.staticGraph;
    h.findUnusedParameters = o.findUnusedParameters;
    h.firstBucketMb = o.firstBucketMb;
    h.optimizer = o.optimizer;
    h.hook = o.hook;
    if (o.hook == "powersgd") {
        h.powersgdRank = o.powersgdRank;
        h.powersgdStartIter = o.powersgdStartIter;
        h.powersgdMinCompressionRate = 2.0;
        h.powersgdUseErrorFeedback = true;
        h.powersgdWarmStart = true;
        h.powersgdOrthogonalizationEpsilon = 0.0;
        h.powersgdRandomSeed = 0;
        h.powersgdBatchTensorsWithSameShape = false;
        h.powersgdNumelBefore = r.powersgdNumelBefore;
        h.powersgdNumelAfter = r.powersgdNumelAfter;
        h.powersgdCompressedBuckets = r.powersgdCompressedBuckets;
    }
    h.seed = std::int64_t(o.seed);
    h.threads = o.threads;
    h.intraOpThreads = r.intraOpThreads;
    h.recordFromIteration = o.recordFromIteration;
    h.bucketCountsSeen.assign(r.bucketCountsSeen.begin(), r.bucketCountsSeen.end());
    h.rebuildDetected = r.rebuildDetected;
    h.gradChecksumsAgree = r.gradChecksumsAgree;
    h.gradChecksumNote = r.gradChecksumNote;
    h.paramChecksum = r.paramChecksum;
    h.peakHostBytes = double(r.peakHostBytes);
    h.peakDeviceBytes = double(r.peakDeviceBytes);
    h.clock = "CLOCK_MONOTONIC";
    h.traceFile = r.traceFile;
    h.wallS = r.wallS;
    h.cpuS = cpuSeconds();
    return h;
}

// docs/formats.md, "ddp_logging": the logger's samples, and plain means over those the hook
// recorded too.
results::DdpLoggingRecord ddpLoggingOf(const DdpLoggingResult& d, int recordFrom) {
    results::DdpLoggingRecord out;
    out.available = d.available;
    out.reason = d.reason;
    out.source = "c10d::Logger";
    out.timer = d.timer;
    out.sampleRule = "the Reducer's iterations 1-10, then every 100th "
                     "(kDDPRuntimeLoggingSampleRate); here 0-based";
    std::int64_t compute = 0, comm = 0, overlap = 0;
    for (const auto& s : d.samples) {
        out.iterationsSampled.push_back(s.iteration);
        out.samples.push_back(
            {s.iteration, s.forwardComputeNs, s.backwardComputeNs, s.backwardCommNs, s.overlapNs});
        if (s.iteration >= recordFrom) {
            out.recordedIterationsSampled.push_back(s.iteration);
            compute += s.backwardComputeNs;
            comm += s.backwardCommNs;
            overlap += s.overlapNs;
        }
    }
    out.avgForwardComputeNs = d.avgForwardComputeNs;
    out.avgBackwardComputeNs = d.avgBackwardComputeNs;
    out.avgBackwardCommNs = d.avgBackwardCommNs;
    out.avgOverlapNs = d.avgOverlapNs;
    if (const auto n = std::int64_t(out.recordedIterationsSampled.size()); n > 0) {
        out.recordedAvgBackwardComputeNs = compute / n;
        out.recordedAvgBackwardCommNs = comm / n;
        out.recordedAvgOverlapNs = overlap / n;
    }
    return out;
}

// "model" and "config": the header's fields that sit in them, each with its nested object
// ("input", "powersgd") only where the run has it.
void writeModelAndConfig(JsonWriter& j, const results::RankHeader& h) {
    namespace k = results::rank_keys;
    const auto& table = results::rankHeaderFields();
    const auto object = [&](const char* key, const char* nested, bool withNested) {
        j.beginObject(key);
        writeFields(j, table, h, key);
        if (withNested) {
            j.beginObject(nested);
            writeFields(j, table, h, std::string(key) + "." + nested);
            j.endObject();
        }
        j.endObject();
    };
    object(k::kModel, k::kInput, !h.torchscript.empty());
    object(k::kConfig, k::kPowersgd, h.hook == "powersgd");
}

// "parameters", "initial_buckets", "final_buckets": the gradients and how DDP bucketed them.
void writeLayout(JsonWriter& j, const RankResult& r) {
    namespace k = results::rank_keys;
    const auto param = [](const auto& p) {
        return results::ParameterRecord{p.name, {p.shape.begin(), p.shape.end()}, double(p.bytes)};
    };
    writeRecords(j, k::kParameters, results::parameterFields(),
                 spec::mapped<std::vector<results::ParameterRecord>>(r.params, param));
    for (const auto& [key, buckets] : {std::pair{k::kInitialBuckets, &r.initialBuckets},
                                       std::pair{k::kFinalBuckets, &r.finalBuckets}}) {
        j.beginArray(key);
        for (const auto& b : *buckets) {
            j.intArray(b);
        }
        j.endArray();
    }
}

} // namespace

std::string rankResultJson(const RankResult& r) {
    namespace k = results::rank_keys;
    const results::RankHeader h = headerOf(r);
    JsonWriter j;
    j.beginObject();
    writeFields(j, results::rankHeaderFields(), h);
    writeModelAndConfig(j, h);
    writeLayout(j, r);
    std::vector<results::IterationRecord> iterations;
    for (const auto& it : r.iterations) {
        iterations.push_back(
            {it.iter, it.forwardMs, it.backwardMs, it.optimizerMs, it.stepMs, it.gradChecksum});
    }
    writeRecords(j, k::kIterations, results::iterationFields(), iterations);
    std::vector<results::BucketRecord> buckets;
    for (const auto& b : r.buckets) {
        buckets.push_back(
            {b.iteration, b.index, b.bytes, double(b.wireBytes), b.nparams, b.startNs, b.endNs});
    }
    writeRecords(j, k::kBuckets, results::bucketFields(), buckets);
    const results::DdpLoggingRecord log = ddpLoggingOf(r.ddpLogging, r.options.recordFromIteration);
    j.beginObject(k::kDdpLogging);
    writeFields(j, results::ddpLoggingFields(), log);
    writeRecords(j, k::kSamples, results::ddpSampleFields(), log.samples);
    j.endObject();
    j.endObject();
    return j.str() + "\n";
}

std::string versionJson() {
    JsonWriter j;
    j.beginObject();
    j.field("torch_version", std::string(TORCH_VERSION));
    j.field("cuda", torch::cuda::is_available());
    j.field("cuda_build", kHasCudaBuild);
    j.beginArray("cuda_archs");
#ifdef TORCH_CUDA_ARCH_LIST_STR
    j.value(TORCH_CUDA_ARCH_LIST_STR);
#endif
    j.endArray();
    j.field("gloo", true);
    j.field("nccl", kHasNccl);
    j.field("nccl_version", ncclVersionString());
    j.field("kineto", libtorchHasKineto());
    j.beginArray("comm_hooks");
    for (const auto& name : hookNames()) {
        j.value(name);
    }
    j.endArray();
    j.beginObject("comm_hooks_refused");
    j.beginObject("gloo_cpu");
    for (const auto& [hook, reason] : glooCpuRefusals()) {
        j.field(hook, reason);
    }
    j.endObject();
    j.endObject();
    j.endObject();
    return j.str() + "\n";
}

} // namespace commprof::rank
