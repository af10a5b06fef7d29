// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A rank{R}.json as typed values (docs/formats.md), made once where the file is read and checked
// (rank_file.h): what the analyses use of it, so nothing downstream picks fields out of JSON.
// Times as the file writes them: milliseconds per phase, CLOCK_MONOTONIC nanoseconds per bucket.

#include <QString>

#include <optional>
#include <vector>

namespace commprof::results {

struct IterationRecord {
    int iter = 0;
    double forwardMs = 0, backwardMs = 0, optimizerMs = 0, stepMs = 0;
};

struct BucketRecord {
    int iter = 0;
    int index = 0;
    double bytes = 0;
    std::optional<double> wireBytes;
    int nparams = 0;
    double startNs = 0, endNs = 0;
};

struct ParameterRecord {
    QString name;
    std::vector<double> shape;
    double bytes = 0;
};

struct RankRecord {
    int rank = 0;
    int worldSize = 0;
    QString backend;
    int recordFromIteration = 0;
    std::optional<double> wallS; // the rank process's wall time, from the start of setup
    int powersgdRank = 1;        // config.powersgd.matrix_approximation_rank
    int threads = 1;             // config.threads as asked (0 or absent: 1)
    // What the store keeps of the run beside the figures; not checked, read as written.
    QString torchVersion;
    QString modelSignature; // model.signature
    double paramChecksum = 0;
    bool gradChecksumsAgree = false;
    double peakHostBytes = 0, peakDeviceBytes = 0;
    std::vector<ParameterRecord> parameters; // registration order
    std::vector<IterationRecord> iterations;
    std::vector<BucketRecord> buckets;
    // The iterations from record_from_iteration on.
    std::vector<const IterationRecord*> recorded() const;
};

} // namespace commprof::results
