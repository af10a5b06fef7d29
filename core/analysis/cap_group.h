// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A group of DDP cells that differ only in their bucket cap, with every candidate cap's
// predicted step (recommendation.h fills them) and the advice on the cap to set (cap_advice.h
// judges it): the record both read and write, so neither includes the other.

#include "analysis/collective_sweep.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace commprof::analysis {

struct CapCandidate {
    double capMb = 0;
    int buckets = 0;
    double predictedStepMs = 0;
    double predictedExposedMs = 0;
    std::optional<double> measuredStepMs; // median of rank 0's step_ms; none when not run
    // Predicted from the other caps' cells only; none when not run or no other cap was.
    std::optional<double> heldOutStepMs;
    // The standard error of measuredStepMs (cap_advice.h's stepStandardErrorMs): across the
    // cap's repeats where it has several, else across its cell's recorded iterations.
    std::optional<double> stepStandardErrorMs;
    QString spreadFrom; // "repeats" | "iterations"; empty without a standard error
    QString measuredCell;
    // (held-out prediction, else prediction - measured) / measured
    std::optional<double> error() const {
        return measuredStepMs && *measuredStepMs > 0
                   ? std::optional((heldOutStepMs.value_or(predictedStepMs) - *measuredStepMs) /
                                   *measuredStepMs)
                   : std::nullopt;
    }
};

// The cap a group runs at now, the one to set and what that saves a step.
struct CapAdvice {
    std::optional<double> currentCapMb;
    QString currentFrom;                 // named | matrix | measured | ddp_default (cap_advice.h)
    std::optional<double> savingMs;      // step at the current cap minus at the fastest
    std::optional<double> uncertaintyMs; // one standard uncertainty of savingMs
    QString savingFrom;                  // measured (both caps measured) | predicted
    // What the spread of a measured step counts (cap_advice.h): repeats | run drift | iterations
    // (the drift between runs not measured); empty for a predicted saving.
    QString spreadFrom;
    QString reason; // why nothing is recommended; empty when a cap is
};

// How much a cell's step moves between runs of the same work, relative (cap_advice.h's
// runDrift); none where the study has no two such cells.
struct RunDrift {
    std::optional<double> relative;
    int cells = 0; // the cells it is measured over
};

struct CapGroup {
    QString model, layer, hook;
    // The settings that tell this group from another whose heading would read the same (the
    // heading prints model, layer, world size, hook and first bucket); empty when none does.
    QJsonObject settings;
    QString link = "loopback"; // its sweep is the one over the same link
    int worldSize = 0;
    double firstBucketMb = 1;
    QStringList cells;
    QString reason; // why nothing is predicted; empty when it is
    QString readyTimesFrom, sweepCell;
    LinearFit fit;
    int powersgdRank = 1;
    double scale = 0;     // the median calibrated scale of the fit over the group's cells
    bool heldOut = false; // every measured cap's error is of a held-out prediction
    QStringList left;     // cells left out of the calibration, each with why
    std::vector<CapCandidate> candidates; // by cap; empty with a reason
    std::vector<double> measuredCapsMb;   // with a reason: what was run
    std::optional<double> fastestCapMb;   // recommendation.h's rule; none with a reason
    std::optional<double> mape;           // mean |error| over the measured candidates
    // What to change, against the current cap (cap_advice.h): recommendedCapMb is none where
    // nothing is recommended, and then advice.reason says why.
    CapAdvice advice;
    std::optional<double> recommendedCapMb;
    RunDrift drift; // the study's, the same in every group
    int measured() const;
};

// What the current cap is: the one the user names, else the matrix's scalar bucket_cap_mb
// (inputs/matrix_cap.h's matrixScalarCapMb), else a group's one measured cap, else DDP's default.
struct CurrentCap {
    std::optional<double> namedMb;
    std::optional<double> matrixMb;
};

} // namespace commprof::analysis
