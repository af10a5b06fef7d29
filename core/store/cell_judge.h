// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Whether a cell is complete, judged once, at ingest, and stored with it (`cells.status` and
// `reasons`): what `cells`, the report, `recommend`, `calibrate` and the workbench all take.
// results::judge's rule on the cell's files (docs/formats.md), then what reading them further
// finds: a sweep whose ranks' files do not merge into one series per kind, or a trace that cannot
// be read, is missing data, and its cell is incomplete with that said.

#include "results/cell_files.h"

#include <QString>
#include <QStringList>

namespace commprof::store {

// What ingest found reading a cell's files beyond their records.
struct FurtherReading {
    QStringList sweepProblems; // analysis::mergeSweep's
    QString traceError;        // analysis::analyzeCell's
};

results::Completeness judgeCell(const results::CellFiles& files, const FurtherReading& found);

} // namespace commprof::store
