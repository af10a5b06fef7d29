// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// commprof recommend: per group of DDP cells that differ only in their bucket cap (same model,
// layer, world size, hook and every other setting), the bucket schedule of every candidate cap
// simulated from the parameters' ready times (ready_times.h, from the group's smallest measured
// cap) and the all_reduce sweep's alpha-beta fit at the same layer and world size; measured
// beside predicted where a cap was run, and the cap with the smallest predicted step.

#include "analysis/collective_sweep.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace commprof::analysis {

// Caps every group is predicted at, besides the ones it measured (MiB).
inline const std::vector<double> kStandardCapsMb{0.25, 0.5, 1, 2, 4, 8, 16, 25, 32, 64};

struct CapCandidate {
    double capMb = 0;
    int buckets = 0;
    double predictedStepMs = 0;
    double predictedExposedMs = 0;
    std::optional<double> measuredStepMs; // median of rank 0's step_ms; none when not run
    QString measuredCell;
    // (predicted - measured) / measured
    std::optional<double> error() const {
        if (!measuredStepMs || *measuredStepMs <= 0) {
            return std::nullopt;
        }
        return (predictedStepMs - *measuredStepMs) / *measuredStepMs;
    }
};

struct CapGroup {
    QString model, layer, hook;
    int worldSize = 0;
    double firstBucketMb = 1;
    QStringList cells;
    QString reason; // why nothing is predicted; empty when it is
    QString readyTimesFrom, sweepCell;
    LinearFit fit;
    std::vector<CapCandidate> candidates; // by cap; empty with a reason
    std::vector<double> measuredCapsMb;   // with a reason: what was run
    std::optional<double> recommendedCapMb;
    std::optional<double> mape; // mean |error| over the measured candidates
    int measured() const;
};

struct Recommendations {
    std::vector<CapGroup> groups;
    bool ok() const; // every group recommends a cap
};

// The complete DDP cells and sweeps of a results folder (checked as one beforehand).
Recommendations recommend(const QString& resultsDir);

QJsonObject toJson(const Recommendations& r);
// A table per group, its recommendation and its error, or what it lacks.
QString describe(const CapGroup& g);

} // namespace commprof::analysis
