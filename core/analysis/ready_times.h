// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The step model's input (step_model.h) from a measured DDP cell's rank files: one of its
// ready-time sources (a trace is the other, trace_ready_times.h). The rank records no
// per-parameter times: a bucket is launched when its last gradient is ready, so its launch is
// that parameter's ready time, and the bucket's other parameters are spread linearly by bytes
// between the previous bucket's launch and this one's.
//
// The reference point is the iteration's backward start, which the rank file does not hold as a
// time: it is the iteration's last bucket completion minus backward_ms (the backward returns
// once the reducer has waited for its last all-reduce). Gradient-ready order is taken as reverse
// registration order (what the reducer's rebuild finds for a feed-forward model), checked
// against the recorded buckets' parameter counts and bytes.

#include "analysis/step_model.h"
#include "results/rank_record.h"

#include <QMap>
#include <QString>

#include <optional>
#include <vector>

namespace commprof::analysis {

// The profile of cell `cellId` from its rank files (by rank); nullopt with *why ("ID: ...")
// when they do not hold what it needs.
std::optional<StepProfile> profileFromRankFiles(const QString& cellId,
                                                const QMap<int, results::RankRecord>& ranks,
                                                QString* why = nullptr);

// The median over the recorded iterations (from record_from_iteration) of rank 0's step_ms.
std::optional<double> measuredStepMs(const QMap<int, results::RankRecord>& ranks);
// Rank 0's step_ms of every recorded iteration, in order (what measuredStepMs is the median of).
std::vector<double> recordedStepsMs(const QMap<int, results::RankRecord>& ranks);

} // namespace commprof::analysis
