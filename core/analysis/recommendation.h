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

#include "analysis/cap_group.h"
#include "analysis/study_cell.h"

#include <QString>
#include <QStringList>

#include <vector>

namespace commprof::analysis {

// Caps every group is predicted at, besides the ones it measured (MiB).
inline const std::vector<double> kStandardCapsMb{0.25, 0.5, 1, 2, 4, 8, 16, 25, 32, 64};

// A cell recommend left out before grouping, and why.
struct DroppedCell {
    QString cell;
    QString status; // incomplete | failed | stopped | skipped_infeasible
    QStringList reasons;
};

struct Recommendations {
    std::vector<CapGroup> groups;     // those of more than one rank first, each part in key order
    std::vector<DroppedCell> dropped; // every cell not complete, by id
    bool ok() const;                  // every group is predicted (a recommendation or not)
};

// From the cells of a results folder as the store holds them (store::studyCells): its complete
// DDP cells and sweeps, complete as ingest judged them. Reads no file.
Recommendations recommend(const std::vector<StudyCell>& cells, const CurrentCap& current = {});

} // namespace commprof::analysis
