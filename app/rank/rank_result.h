// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Everything one rank measured, and its file rank{R}.json (docs/formats.md); the rank's two
// runs, training and the collective sweep.

#include "bucket_timer.h"
#include "ddp_logging.h"
#include "options.h"

#include <string>
#include <vector>

namespace commprof::rank {

constexpr int kRankSchemaVersion = 1;

struct IterationTimes {
    int iter = 0;
    double forwardMs = 0, backwardMs = 0, optimizerMs = 0, stepMs = 0;
    double gradChecksum = 0;
};

struct ParamInfo {
    std::string name;
    std::vector<std::int64_t> shape;
    std::int64_t bytes = 0;
};

struct RankResult {
    RankOptions options;
    std::string modelDescription;
    std::int64_t actualParams = 0; // every parameter, frozen ones too
    std::int64_t frozenParams = 0; // those that require no gradient: not the Reducer's
    std::string signatureHash;
    std::vector<ParamInfo> params;
    std::string interconnect;
    int intraOpThreads = 0; // what libtorch runs ops with, --threads or its own default
    std::string deviceName;
    std::vector<IterationTimes> iterations;
    std::vector<BucketRecord> buckets;
    std::vector<int> bucketCountsSeen;
    std::vector<std::vector<std::size_t>>
        initialBuckets; // parameter indices per bucket, as assigned
    // The Reducer's buckets after the last iteration: the rebuilt, gradient-ready layout.
    std::vector<std::vector<std::size_t>> finalBuckets;
    bool rebuildDetected = false;
    bool gradChecksumsAgree = false;
    std::string gradChecksumNote;
    double paramChecksum = 0;
    std::int64_t peakHostBytes = 0;
    std::int64_t peakDeviceBytes = 0;
    std::string traceFile;
    double wallS = 0;
    DdpLoggingResult ddpLogging;
    // --hook powersgd: PowerSGDState's compression statistics.
    std::int64_t powersgdNumelBefore = 0;
    std::int64_t powersgdNumelAfter = 0;
    std::int64_t powersgdCompressedBuckets = 0;
};

// One rank's DDP run (ddp_loop.cpp): setup as Python DDP does it, then the timed loop over
// c10d::Reducer. Prints progress as JSON lines on stdout; throws on any failure.
RankResult runDdp(const RankOptions& options);

// commprof-rank --sweep (collective_sweep.cpp): collectives over message sizes from 8 B doubling
// to a maximum, like nccl-tests' *_perf. Each size gets warmup iterations, then timed ones with a
// barrier before each, so that no iteration queues behind the previous one. Writes
// sweep_rank{R}.json (docs/formats.md). Throws on any failure; returns the file written.
std::string runSweep(const RankOptions& options);

std::string rankResultJson(const RankResult& r);
// Temp file, fsync, rename: a reader never sees half a file.
void writeFileAtomically(const std::string& path, const std::string& content);
std::string versionJson();

// One line to the launcher on stdout (a progress event), flushed at once.
void emit(const std::string& line);

// Peak resident set size of this process (VmHWM), in bytes.
std::int64_t peakHostBytes();
// The CUDA caching allocator's peak reserved bytes on `device` (0 on CPU).
std::int64_t peakDeviceBytes(const c10::Device& device);

} // namespace commprof::rank
