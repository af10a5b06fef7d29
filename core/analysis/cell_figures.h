// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The figures of one cell that the store keeps: what analyzeCell computes (cell_metrics.h) and
// what a row of the `cells` table holds (store/cell_row.h) are this one struct, so ingest stores
// them without copying them field by field, and a new figure is one member here.

#include "analysis/ddp_logger_agreement.h"

#include <QString>

#include <optional>

namespace commprof::analysis {

struct CellFigures {
    std::optional<double> stepMs; // median over recorded iterations, every rank
    std::optional<double>
        hookCommMs; // median per recorded iteration: union of rank 0's bucket intervals
    std::optional<double> traceCommMs; // median per traced step of rank 0's trace
    // The two instruments over the traced steps of every rank with a trace, summed: per step
    // and rank, the union of the hook's bucket intervals and the union of the backend's work.
    int agreementSteps = 0;                   // rank-steps compared
    std::optional<double> hookTotalMs;        // hook, summed over those rank-steps
    std::optional<double> backendTotalMs;     // backend, summed over the same rank-steps
    std::optional<double> hookTraceAgreement; // backend / hook: backendTotalMs / hookTotalMs
    bool agreementFlagged = false;            // beyond +-10 %, or one side zero
    QString agreementReason;                  // why it is flagged
    QString backendSource;                    // "gloo:* host spans" or "collective kernels"
    DdpLoggerFigures ddpLogger;               // the third instrument, every rank
    int bucketsCompared = 0;
    int bucketsMatched = 0;
    std::optional<double> overlapEfficiency;
    std::optional<double> commOverheadFraction;
    std::optional<double> exposedCommMs;
    std::optional<double> computeMs;
    std::optional<double> bookkeepingMs;
    double peakHostBytes = 0;
    double peakDeviceBytes = 0;
    std::optional<int> slowestRank; // slowest at most traced steps
    std::optional<double> medianSkewMs;
};

} // namespace commprof::analysis
