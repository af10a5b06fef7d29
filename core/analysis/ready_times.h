// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Each parameter's gradient-ready time in the backward pass, derived from a measured DDP cell's
// bucket launches, since the rank records no per-parameter times: a bucket is launched when its
// last gradient is ready, so its launch is that parameter's ready time, and the bucket's other
// parameters are spread linearly by bytes between the previous bucket's launch and this one's.
//
// The reference point is the iteration's backward start, which the rank file does not hold as a
// time: it is the iteration's last bucket completion minus backward_ms (the backward returns
// once the reducer has waited for its last all-reduce). Gradient-ready order is taken as reverse
// registration order (what the reducer's rebuild finds for a feed-forward model), checked
// against the recorded buckets' parameter counts and bytes.

#include "analysis/bucket_schedule.h"
#include "results/cell_files.h"

#include <QString>

#include <optional>
#include <vector>

namespace commprof::analysis {

struct ReadyTimes {
    QString sourceCell;
    std::vector<ReadyParam> params; // in gradient-ready order
    // Medians over the recorded iterations and ranks, in microseconds.
    double forwardUs = 0;
    double computeEndUs = 0; // the last bucket's launch: the backward's compute is done
    double optimizerUs = 0;
    // What the backward waited for after its compute: the last bucket's completion minus its
    // launch.
    double exposedUs = 0;
    int samples = 0; // rank-iterations the medians are over
};

// nullopt with *why when the cell's rank files do not hold what it needs.
std::optional<ReadyTimes> readyTimesFromBuckets(const results::CellFiles& cell,
                                                QString* why = nullptr);

// The median over the recorded iterations (from record_from_iteration) of rank 0's step_ms.
std::optional<double> measuredStepMs(const results::CellFiles& cell);

} // namespace commprof::analysis
