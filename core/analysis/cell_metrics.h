#pragma once
// Per-cell figures from a cell's rank files and rank 0's trace: the two instruments (the comm
// hook's bucket intervals and the trace's communication) side by side.

#include "results/cell_files.h"
#include "trace/step_metrics.h"

#include <optional>
#include <vector>

namespace commprof::analysis {

constexpr double kAgreementTolerance = 0.10;

struct CellMetrics {
    std::optional<double> stepMs; // median over recorded iterations, every rank
    std::optional<double>
        hookCommMs; // median per recorded iteration: union of rank 0's bucket intervals
    std::optional<double> traceCommMs;        // median per traced step of rank 0's trace
    std::optional<double> hookTraceAgreement; // trace / hook, summed over the steps both saw
    bool agreementFlagged = false;            // beyond +-10 %, or one side zero
    std::optional<double> overlapEfficiency;
    std::optional<double> commOverheadFraction;
    std::optional<double> exposedCommMs;
    std::optional<double> computeMs;
    std::optional<double> bookkeepingMs;
    double peakHostBytes = 0;
    double peakDeviceBytes = 0;
    std::vector<trace::StepMetrics> traceSteps;
    QStringList warnings;
    QString traceError; // rank 0's trace exists but could not be read: the cell is not complete
};

CellMetrics analyzeCell(const results::CellFiles& files);

std::optional<double> median(std::vector<double> values);

} // namespace commprof::analysis
