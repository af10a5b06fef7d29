// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The third instrument: the Reducer's own DDP logging data (rank file `ddp_logging`,
// docs/formats.md), set beside the comm hook. Per sampled recorded iteration of every rank,
// the logger's backward_comm_time spans the iteration's buckets, from the first launch to the
// last completion, so it is compared with the extent of the hook's bucket intervals of that
// iteration (not their sum). The logger's backward compute time is what the overlap tax
// compares with a `hook: local` twin (store/overlap_tax.h).

#include "results/rank_record.h"

#include <QMap>
#include <QString>

#include <optional>

namespace commprof::analysis {

struct DdpLoggerFigures {
    // Means over every rank's sampled recorded iterations, in ms; none without a sample.
    std::optional<double> backwardComputeMs, backwardCommMs, overlapMs;
    int samples = 0; // rank-iterations the logger sampled and the hook recorded
    // Logger / hook, both summed over the same rank-iterations.
    std::optional<double> ratio;
    bool flagged = false; // beyond the agreement tolerance (instrument_agreement.h)
    QString reason;       // why flagged, or why not judged
};

DdpLoggerFigures ddpLoggerFigures(const QMap<int, results::RankRecord>& rankFiles);

} // namespace commprof::analysis
