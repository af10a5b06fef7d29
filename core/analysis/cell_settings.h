// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The settings a results cell's ranks ran with, from the cell.json beside its traces
// (docs/formats.md, "Results directory"; read by inputs/cell_settings_file.h): its bucket cap,
// first bucket, comm hook, and the layer's backend and device. `trace whatif` and the What if page
// read a cell's traces with them, so a cap-4 cell is replayed at 4 MiB and a gloo_cpu cell as gloo
// on a CPU, whatever the traces themselves can show.

#include "spec/comm_hooks.h"

#include <QString>

namespace commprof::analysis {

struct CellSettings {
    QString path; // the cell.json read
    double bucketCapMb = 25;
    double firstBucketMb = 1;
    QString hook = "allreduce"; // as spec/comm_hooks.h names it ("timing", "default": allreduce)
    QString layer;
    QString backend; // the layer's process group; empty for a layer spec/layers.h does not know
    bool onDevice = false;
    int worldSize = 0; // 0: not said
    QString link;      // the emulated link its ranks crossed (loopback where none is said)
};

// Why a cell that ran the `local` hook has nothing to predict from; empty for any other hook.
inline QString localBaselineWhy(const CellSettings& cell) {
    if (!spec::sendsNothing(cell.hook.toStdString())) {
        return {};
    }
    return QString("%1 says the job ran the `local` hook, which sends nothing: it is the "
                   "no-communication baseline, and its traces time no collective to predict "
                   "another hook or cap from (open a cell that communicates)")
        .arg(cell.path);
}

} // namespace commprof::analysis
