// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// commprof recommend: per group of DDP cells that differ only in their bucket cap (same model,
// layer, world size, hook and every other setting), every candidate cap's step predicted by the
// step model (step_model.h) from the parameters' ready times (ready_times.h: the rank files'
// adapter) and the all_reduce sweep's fit at the same layer and world size (sweep_pairing.h).
//
// Inside the backward a bucket's collectives share the cores with the compute and carry the
// hook's own work (casts, PowerSGD's products), so they run several times slower than the
// sweep's all-reduces alone. Each measured cell calibrates that factor: the scale of the fit at
// which its simulated schedule exposes what its buckets exposed. A cap is predicted from the
// medians (compute times, scale) of the group's cells; a measured cap is also predicted from the
// other caps' cells alone, and that held-out prediction is the one its error and the MAPE are of.
// The fastest cap is the fastest measured cap, unless a cap not run is predicted faster than
// that cap's own prediction by more than the group's held-out MAPE (10 % without one). Whether
// to move to it from the current cap is cap_advice.h's: a recommendation only where the saving
// is larger than its uncertainty, and none for `hook: local`, which communicates nothing.

#include "analysis/collective_sweep.h"
#include "results/cell_files.h"

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
    // Predicted from the other caps' cells only; none when not run or no other cap was.
    std::optional<double> heldOutStepMs;
    // The standard error of measuredStepMs (cap_advice.h's stepStandardErrorMs): across the
    // cap's repeats where it has several, else across its cell's recorded iterations.
    std::optional<double> stepStandardErrorMs;
    QString spreadFrom; // "repeats" | "iterations"; empty without a standard error
    QString measuredCell;
    // (held-out prediction, else prediction - measured) / measured
    std::optional<double> error() const {
        if (!measuredStepMs || *measuredStepMs <= 0) {
            return std::nullopt;
        }
        return (heldOutStepMs.value_or(predictedStepMs) - *measuredStepMs) / *measuredStepMs;
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
    std::optional<double> fastestCapMb;   // the rule above; none with a reason
    std::optional<double> mape;           // mean |error| over the measured candidates
    // What to change, against the current cap (cap_advice.h): recommendedCapMb is none where
    // nothing is recommended, and then advice.reason says why.
    CapAdvice advice;
    std::optional<double> recommendedCapMb;
    RunDrift drift; // the study's, the same in every group
    int measured() const;
};

// A cell recommend left out before grouping, and why.
struct DroppedCell {
    QString cell;
    QString status; // incomplete | failed | stopped | skipped_infeasible
    QStringList reasons;
};

struct Recommendations {
    std::vector<CapGroup> groups;
    std::vector<DroppedCell> dropped; // every cell not complete, by id
    bool ok() const;                  // every group is predicted (a recommendation or not)
};

// What the current cap is: the one the user names, else the matrix's scalar bucket_cap_mb
// (inputs/matrix_cap.h's matrixScalarCapMb), else a group's one measured cap, else DDP's default.
struct CurrentCap {
    std::optional<double> namedMb;
    std::optional<double> matrixMb;
};

// From the cells of a results folder as read (results::readCells): its complete DDP cells and
// sweeps. Reads no file.
Recommendations recommend(const std::vector<results::CellFiles>& cells,
                          const CurrentCap& current = {});

QJsonObject toJson(const Recommendations& r);
// "mlp2m on gloo_cpu, world size 2, hook allreduce", with the settings that tell it from a
// group that would read the same ("batch_size 8"): what a recommendation line is about.
QString groupLabel(const CapGroup& g);
// A table per group, its recommendation and its error, or what it lacks.
QString describe(const CapGroup& g);
// A line per cell left out: "left out: ID (incomplete): reasons".
QString describeDropped(const Recommendations& r);

} // namespace commprof::analysis
