// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// rank{R}.json and sweep_rank{R}.json described once (docs/formats.md), in spec/field_table.h's
// rows: each field's JSON key, the object it sits in, its type (the member's), whether a file
// may leave it out, the bounds a reader accepts and the member of the typed record it fills.
// commprof-rank writes its records through these tables (app/rank/field_writer.h, for
// rank_result.cpp and collective_sweep.cpp) and core reads and checks the files through the same
// tables (rank_file.cpp), so a new field is one row here (and its member) and the writer's value:
// nothing else. What a table cannot say, rules across fields (ranks unique, no phase longer than
// the run), stays in rank_file.cpp.
// Plain C++17 and header-only: commprof-rank includes it and links no Qt.

#include "spec/field_table.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace commprof::results {

// The one field-table mechanism (spec/field_table.h), under the names the rank's tables use.
using spec::Field;
using spec::kNoLimit;
using spec::Need;

inline constexpr std::int64_t kMaxWorldSize = 1024;
inline constexpr std::int64_t kMaxIteration = 1000000000;
inline constexpr std::int64_t kMaxBucketIndex = 1000000;
inline constexpr std::int64_t kMaxCount = kNoLimit / 2; // bytes, nanoseconds: whole numbers

// The arrays and objects of a rank file that hold records of the tables below.
namespace rank_keys {
inline constexpr const char* kModel = "model";
inline constexpr const char* kInput = "input"; // in model, with a TorchScript module
inline constexpr const char* kConfig = "config";
inline constexpr const char* kPowersgd = "powersgd"; // in config, with hook powersgd
inline constexpr const char* kParameters = "parameters";
inline constexpr const char* kInitialBuckets = "initial_buckets"; // parameter indices per bucket
inline constexpr const char* kFinalBuckets = "final_buckets";
inline constexpr const char* kIterations = "iterations";
inline constexpr const char* kBuckets = "buckets";
inline constexpr const char* kDdpLogging = "ddp_logging";
inline constexpr const char* kSamples = "samples"; // in ddp_logging
inline constexpr const char* kKinds = "kinds";     // sweep_rank{R}.json
inline constexpr const char* kSizes = "sizes";     // in each of kinds
} // namespace rank_keys

// ---- rank{R}.json: the scalars of the run -------------------------------------------------

struct RankHeader {
    int schemaVersion = 0;
    std::string producer, cellId;
    int rank = 0, localRank = 0, worldSize = 0;
    std::string backend, device, deviceName, layer, interconnect;
    // model
    std::string modelName, family, torchscript, modelSignature, description;
    double params = 0, frozenParams = 0, requestedParams = 0;
    std::optional<std::int64_t> inputTokens, inputVocab, inputClasses;
    std::vector<std::int64_t> inputShape;
    std::string torchVersion, ncclVersion;
    // config
    int iterations = 0, warmup = 0, batchSize = 0;
    double bucketCapMb = 0, firstBucketMb = 0;
    bool gradientAsBucketView = false, staticGraph = false, findUnusedParameters = false;
    std::string optimizer, hook;
    std::int64_t seed = 0;
    int threads = 1; // as asked: 0 for libtorch's default (absent in old files: 1)
    int intraOpThreads = 0;
    // config.powersgd, with hook powersgd
    int powersgdRank = 1; // matrix_approximation_rank
    std::optional<std::int64_t> powersgdStartIter, powersgdNumelBefore, powersgdNumelAfter,
        powersgdCompressedBuckets;
    // PowerSGDState's settings this rank always runs with, Python's defaults (docs/formats.md)
    std::optional<double> powersgdMinCompressionRate, powersgdOrthogonalizationEpsilon;
    std::optional<std::int64_t> powersgdRandomSeed;
    bool powersgdUseErrorFeedback = false, powersgdWarmStart = false,
         powersgdBatchTensorsWithSameShape = false;
    int recordFromIteration = 0;
    std::vector<std::int64_t> bucketCountsSeen;
    bool rebuildDetected = false, gradChecksumsAgree = false;
    std::string gradChecksumNote;
    double paramChecksum = 0;
    double peakHostBytes = 0, peakDeviceBytes = 0;
    std::string clock, traceFile;
    std::optional<double> wallS; // the rank process's wall time, from the start of setup
    std::optional<double> cpuS;  // its CPU time, user and system, every thread
};

// Rank and world size first: every later problem is told of a known rank.
inline const std::vector<Field<RankHeader>>& rankHeaderFields() {
    using R = RankHeader;
    using N = Need;
    static const std::vector<Field<R>> t = {
        {"schema_version", "", N::AsWritten, 0, kNoLimit, &R::schemaVersion},
        {"producer", "", N::AsWritten, 0, 0, &R::producer},
        {"cell_id", "", N::AsWritten, 0, 0, &R::cellId},
        {"world_size", "", N::Required, 1, kMaxWorldSize, &R::worldSize},
        {"rank", "", N::Required, 0, kMaxWorldSize - 1, &R::rank},
        {"local_rank", "", N::AsWritten, 0, kMaxWorldSize, &R::localRank},
        {"backend", "", N::Optional, 0, 0, &R::backend},
        {"device", "", N::AsWritten, 0, 0, &R::device},
        {"device_name", "", N::AsWritten, 0, 0, &R::deviceName},
        {"layer", "", N::AsWritten, 0, 0, &R::layer},
        {"interconnect", "", N::AsWritten, 0, 0, &R::interconnect},
        {"name", "model", N::AsWritten, 0, 0, &R::modelName},
        {"family", "model", N::AsWritten, 0, 0, &R::family},
        {"params", "model", N::AsWritten, 0, kNoLimit, &R::params},
        {"frozen_params", "model", N::AsWritten, 0, kNoLimit, &R::frozenParams},
        {"torchscript", "model", N::Optional, 0, 0, &R::torchscript},
        {"tokens", "model.input", N::Optional, 0, kNoLimit, &R::inputTokens},
        {"vocab", "model.input", N::Optional, 0, kNoLimit, &R::inputVocab},
        {"shape", "model.input", N::Optional, 0, kNoLimit, &R::inputShape},
        {"classes", "model.input", N::Optional, 0, kNoLimit, &R::inputClasses},
        {"requested_params", "model", N::AsWritten, 0, kNoLimit, &R::requestedParams},
        {"signature", "model", N::AsWritten, 0, 0, &R::modelSignature},
        {"description", "model", N::AsWritten, 0, 0, &R::description},
        {"torch_version", "", N::AsWritten, 0, 0, &R::torchVersion},
        {"nccl_version", "", N::AsWritten, 0, 0, &R::ncclVersion},
        {"iterations", "config", N::AsWritten, 0, kMaxIteration, &R::iterations},
        {"warmup", "config", N::AsWritten, 0, kMaxIteration, &R::warmup},
        {"batch_size", "config", N::AsWritten, 0, kNoLimit, &R::batchSize},
        {"bucket_cap_mb", "config", N::AsWritten, 0, kNoLimit, &R::bucketCapMb},
        {"gradient_as_bucket_view", "config", N::AsWritten, 0, 0, &R::gradientAsBucketView},
        {"static_graph", "config", N::AsWritten, 0, 0, &R::staticGraph},
        {"find_unused_parameters", "config", N::AsWritten, 0, 0, &R::findUnusedParameters},
        {"first_bucket_mb", "config", N::AsWritten, 0, kNoLimit, &R::firstBucketMb},
        {"optimizer", "config", N::AsWritten, 0, 0, &R::optimizer},
        {"hook", "config", N::AsWritten, 0, 0, &R::hook},
        {"matrix_approximation_rank", "config.powersgd", N::Optional, 1, 1 << 20, &R::powersgdRank},
        {"start_powerSGD_iter", "config.powersgd", N::Optional, -1, kNoLimit,
         &R::powersgdStartIter},
        {"min_compression_rate", "config.powersgd", N::Optional, 0, kNoLimit,
         &R::powersgdMinCompressionRate},
        {"use_error_feedback", "config.powersgd", N::AsWritten, 0, 0, &R::powersgdUseErrorFeedback},
        {"warm_start", "config.powersgd", N::AsWritten, 0, 0, &R::powersgdWarmStart},
        {"orthogonalization_epsilon", "config.powersgd", N::Optional, 0, kNoLimit,
         &R::powersgdOrthogonalizationEpsilon},
        {"random_seed", "config.powersgd", N::Optional, 0, kNoLimit, &R::powersgdRandomSeed},
        {"batch_tensors_with_same_shape", "config.powersgd", N::AsWritten, 0, 0,
         &R::powersgdBatchTensorsWithSameShape},
        {"numel_before_compression", "config.powersgd", N::Optional, 0, kNoLimit,
         &R::powersgdNumelBefore},
        {"numel_after_compression", "config.powersgd", N::Optional, 0, kNoLimit,
         &R::powersgdNumelAfter},
        {"compressed_buckets", "config.powersgd", N::Optional, 0, kNoLimit,
         &R::powersgdCompressedBuckets},
        {"seed", "config", N::AsWritten, 0, kNoLimit, &R::seed},
        {"threads", "config", N::Optional, 0, 1 << 20, &R::threads},
        {"intra_op_threads", "config", N::AsWritten, 0, 1 << 20, &R::intraOpThreads},
        {"record_from_iteration", "", N::Optional, 0, kMaxIteration, &R::recordFromIteration},
        {"bucket_counts_seen", "", N::AsWritten, 0, kNoLimit, &R::bucketCountsSeen},
        {"rebuild_detected", "", N::AsWritten, 0, 0, &R::rebuildDetected},
        {"grad_checksums_agree", "", N::AsWritten, 0, 0, &R::gradChecksumsAgree},
        {"grad_checksum_note", "", N::AsWritten, 0, 0, &R::gradChecksumNote},
        {"param_checksum", "", N::AsWritten, 0, kNoLimit, &R::paramChecksum},
        {"peak_host_bytes", "", N::Optional, 0, kNoLimit, &R::peakHostBytes},
        {"peak_device_bytes", "", N::Optional, 0, kNoLimit, &R::peakDeviceBytes},
        {"clock", "", N::AsWritten, 0, 0, &R::clock},
        {"trace_file", "", N::Optional, 0, 0, &R::traceFile},
        {"wall_s", "", N::Optional, 0, kNoLimit, &R::wallS},
        {"cpu_s", "", N::Optional, 0, kNoLimit, &R::cpuS},
    };
    return t;
}

// ---- rank{R}.json: its arrays of records -------------------------------------------------

// "parameters": those that require a gradient, in registration order.
struct ParameterRecord {
    std::string name;
    std::vector<double> shape;
    double bytes = 0;
};

inline const std::vector<Field<ParameterRecord>>& parameterFields() {
    using R = ParameterRecord;
    static const std::vector<Field<R>> t = {
        {"name", "", Need::Optional, 0, 0, &R::name},
        {"shape", "", Need::Optional, 0, kNoLimit, &R::shape},
        {"bytes", "", Need::Optional, 0, kNoLimit, &R::bytes},
    };
    return t;
}

// "iterations": each step's phases, in milliseconds.
struct IterationRecord {
    int iter = 0;
    double forwardMs = 0, backwardMs = 0, optimizerMs = 0, stepMs = 0;
    double gradChecksum = 0;
};

inline const std::vector<Field<IterationRecord>>& iterationFields() {
    using R = IterationRecord;
    static const std::vector<Field<R>> t = {
        {"iter", "", Need::Required, 0, kMaxIteration, &R::iter},
        {"forward_ms", "", Need::Optional, 0, kNoLimit, &R::forwardMs},
        {"backward_ms", "", Need::Optional, 0, kNoLimit, &R::backwardMs},
        {"optimizer_ms", "", Need::Optional, 0, kNoLimit, &R::optimizerMs},
        {"step_ms", "", Need::Optional, 0, kNoLimit, &R::stepMs},
        {"grad_checksum", "", Need::AsWritten, 0, kNoLimit, &R::gradChecksum},
    };
    return t;
}

// "buckets": each recorded bucket's collective, CLOCK_MONOTONIC nanoseconds.
struct BucketRecord {
    int iter = 0;
    int index = 0;
    std::int64_t bytes = 0;
    std::optional<double> wireBytes;
    std::int64_t nparams = 0;
    std::int64_t startNs = 0, endNs = 0;
};

inline const std::vector<Field<BucketRecord>>& bucketFields() {
    using R = BucketRecord;
    static const std::vector<Field<R>> t = {
        {"iter", "", Need::Required, 0, kMaxIteration, &R::iter},
        {"index", "", Need::Required, 0, kMaxBucketIndex, &R::index},
        {"bytes", "", Need::Required, 0, kMaxCount, &R::bytes},
        {"wire_bytes", "", Need::Optional, 0, kNoLimit, &R::wireBytes},
        {"nparams", "", Need::Required, 0, kMaxCount, &R::nparams},
        {"start_ns", "", Need::Required, 0, kMaxCount, &R::startNs},
        {"end_ns", "", Need::Required, 0, kMaxCount, &R::endNs},
    };
    return t;
}

// ---- rank{R}.json: "ddp_logging", the Reducer's own logging data ---------------------------

struct DdpSampleRecord {
    int iter = 0;
    std::int64_t forwardComputeNs = 0, backwardComputeNs = 0, backwardCommNs = 0, overlapNs = 0;
};

inline const std::vector<Field<DdpSampleRecord>>& ddpSampleFields() {
    using R = DdpSampleRecord;
    static const std::vector<Field<R>> t = {
        {"iter", "", Need::AsWritten, 0, kMaxIteration, &R::iter},
        {"forward_compute_time_ns", "", Need::AsWritten, 0, kNoLimit, &R::forwardComputeNs},
        {"backward_compute_time_ns", "", Need::AsWritten, 0, kNoLimit, &R::backwardComputeNs},
        {"backward_comm_time_ns", "", Need::AsWritten, 0, kNoLimit, &R::backwardCommNs},
        {"backward_compute_comm_overlap_time_ns", "", Need::AsWritten, 0, kNoLimit, &R::overlapNs},
    };
    return t;
}

// The logger's figures as it gave them: kept, never checked (a timer with no value says 0).
struct DdpLoggingRecord {
    bool present = false; // the rank file has the object at all
    bool available = false;
    std::string reason; // why not available
    std::string source, timer, sampleRule;
    std::vector<std::int64_t> iterationsSampled, recordedIterationsSampled;
    std::int64_t avgForwardComputeNs = 0, avgBackwardComputeNs = 0, avgBackwardCommNs = 0,
                 avgOverlapNs = 0;
    std::optional<std::int64_t> recordedAvgBackwardComputeNs, recordedAvgBackwardCommNs,
        recordedAvgOverlapNs;
    std::vector<DdpSampleRecord> samples;
};

inline const std::vector<Field<DdpLoggingRecord>>& ddpLoggingFields() {
    using R = DdpLoggingRecord;
    using N = Need;
    static const std::vector<Field<R>> t = {
        {"available", "", N::AsWritten, 0, 0, &R::available},
        {"reason", "", N::Optional, 0, 0, &R::reason},
        {"source", "", N::AsWritten, 0, 0, &R::source},
        {"timer", "", N::AsWritten, 0, 0, &R::timer},
        {"sample_rule", "", N::AsWritten, 0, 0, &R::sampleRule},
        {"iterations_sampled", "", N::AsWritten, 0, kNoLimit, &R::iterationsSampled},
        {"avg_forward_compute_time_ns", "", N::AsWritten, 0, kNoLimit, &R::avgForwardComputeNs},
        {"avg_backward_compute_time_ns", "", N::AsWritten, 0, kNoLimit, &R::avgBackwardComputeNs},
        {"avg_backward_comm_time_ns", "", N::AsWritten, 0, kNoLimit, &R::avgBackwardCommNs},
        {"avg_backward_compute_comm_overlap_time_ns", "", N::AsWritten, 0, kNoLimit,
         &R::avgOverlapNs},
        {"recorded_iterations_sampled", "", N::AsWritten, 0, kNoLimit,
         &R::recordedIterationsSampled},
        {"recorded_avg_backward_compute_time_ns", "", N::Optional, 0, kNoLimit,
         &R::recordedAvgBackwardComputeNs},
        {"recorded_avg_backward_comm_time_ns", "", N::Optional, 0, kNoLimit,
         &R::recordedAvgBackwardCommNs},
        {"recorded_avg_backward_compute_comm_overlap_time_ns", "", N::Optional, 0, kNoLimit,
         &R::recordedAvgOverlapNs},
    };
    return t;
}

// ---- sweep_rank{R}.json --------------------------------------------------------------------

struct SweepSizeRecord {
    std::int64_t bytes = 0;
    std::vector<double> timesUs; // one per timed repetition
};

inline const std::vector<Field<SweepSizeRecord>>& sweepSizeFields() {
    using R = SweepSizeRecord;
    static const std::vector<Field<R>> t = {
        {"bytes", "", Need::Required, 1, kMaxCount, &R::bytes},
        {"times_us", "", Need::Required, 0, kNoLimit, &R::timesUs},
    };
    return t;
}

struct SweepKindRecord {
    std::string kind;
    std::string unsupported; // the backend's message where it refused the kind
    std::vector<SweepSizeRecord> sizes;
};

inline const std::vector<Field<SweepKindRecord>>& sweepKindFields() {
    using R = SweepKindRecord;
    static const std::vector<Field<R>> t = {
        {"kind", "", Need::Required, 0, 0, &R::kind},
        {"unsupported", "", Need::Optional, 0, 0, &R::unsupported},
    };
    return t;
}

struct SweepHeader {
    int schema = 0;
    int rank = 0, worldSize = 0;
    std::string backend, device, layer, cellId, dtype;
    int warmup = 0, iterations = 0;
    std::int64_t maxBytes = 0;
    double peakHostBytes = 0, peakDeviceBytes = 0;
};

inline const std::vector<Field<SweepHeader>>& sweepHeaderFields() {
    using R = SweepHeader;
    using N = Need;
    static const std::vector<Field<R>> t = {
        {"schema", "", N::AsWritten, 0, kNoLimit, &R::schema},
        {"world_size", "", N::Required, 1, kMaxWorldSize, &R::worldSize},
        {"rank", "", N::Required, 0, kMaxWorldSize - 1, &R::rank},
        {"backend", "", N::AsWritten, 0, 0, &R::backend},
        {"device", "", N::AsWritten, 0, 0, &R::device},
        {"layer", "", N::AsWritten, 0, 0, &R::layer},
        {"cell_id", "", N::AsWritten, 0, 0, &R::cellId},
        {"dtype", "", N::AsWritten, 0, 0, &R::dtype},
        {"warmup", "", N::AsWritten, 0, kMaxIteration, &R::warmup},
        {"iterations", "", N::AsWritten, 0, kMaxIteration, &R::iterations},
        {"max_bytes", "", N::AsWritten, 0, kNoLimit, &R::maxBytes},
        {"peak_host_bytes", "", N::AsWritten, 0, kNoLimit, &R::peakHostBytes},
        {"peak_device_bytes", "", N::AsWritten, 0, kNoLimit, &R::peakDeviceBytes},
    };
    return t;
}

} // namespace commprof::results
