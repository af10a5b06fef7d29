// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A rank{R}.json and a sweep_rank{R}.json as typed values (docs/formats.md), made once where the
// file is read and checked (rank_file.h): what the analyses use of it, so nothing downstream picks
// fields out of JSON. Their fields are declared in rank_fields.h. Times as the file writes them:
// milliseconds per phase, CLOCK_MONOTONIC nanoseconds per bucket.

#include "results/rank_fields.h"

#include <vector>

namespace commprof::results {

struct RankRecord : RankHeader {
    std::vector<ParameterRecord> parameters;                             // registration order
    std::vector<std::vector<std::int64_t>> initialBuckets, finalBuckets; // indices in parameters
    std::vector<IterationRecord> iterations;
    std::vector<BucketRecord> buckets;
    DdpLoggingRecord ddpLogging;
    // The iterations from record_from_iteration on.
    std::vector<const IterationRecord*> recorded() const {
        std::vector<const IterationRecord*> out;
        for (const IterationRecord& it : iterations) {
            if (it.iter >= recordFromIteration) {
                out.push_back(&it);
            }
        }
        return out;
    }
};

struct SweepRecord : SweepHeader {
    std::vector<SweepKindRecord> kinds;
};

} // namespace commprof::results
