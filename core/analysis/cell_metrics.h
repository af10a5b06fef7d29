// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Per-cell figures from a cell's rank files and every rank's trace: the two instruments (the comm
// hook's bucket intervals and the backend's own collective work) side by side, per rank and for
// the cell, and the spread across ranks.

#include "analysis/cell_figures.h"
#include "analysis/ddp_logger_agreement.h"
#include "analysis/instrument_agreement.h"
#include "results/cell_files.h"
#include "trace/statistics.h"
#include "trace/step_metrics.h"

#include <optional>
#include <vector>

namespace commprof::analysis {

// One rank's figures: medians over its traced steps, and its two instruments.
struct RankFigures {
    int rank = 0;
    std::optional<double> stepMs, commMs, exposedCommMs; // medians over the traced steps
    std::vector<trace::StepMetrics> traceSteps;
    InstrumentAgreement agreement;
    QString traceError;
    // Host-regime traces: when the rank's own compute ran (for how the cores were shared), and
    // the intra-op threads it ran on.
    trace::SpanSet hostCompute;
    int threads = 1;
};

// One traced step across ranks.
struct StepSpread {
    int step = 0;
    double skewMs = 0; // longest rank's step minus shortest
    std::optional<int> slowestRank;
};

// The stored figures (cell_figures.h) and what only the analysis keeps.
struct CellMetrics : CellFigures {
    std::vector<trace::StepMetrics> traceSteps; // rank 0's
    std::vector<RankFigures> ranks;             // every rank with a rank file, by rank
    std::vector<StepSpread> spread;             // per traced step, over the ranks with a trace
    QStringList warnings;
    QString traceError; // a trace exists but could not be read: the cell is not complete
};

CellMetrics analyzeCell(const results::CellFiles& files);

// The hook's bucket intervals of one rank file, in trace microseconds.
std::vector<HookBucket> hookBuckets(const results::RankRecord& rankFile);

using trace::median; // the one median (trace/statistics.h)

} // namespace commprof::analysis
