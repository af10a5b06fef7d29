// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What `recommend` reads of one cell of a study, as the store holds it after ingest
// (store/study_cells.h): the judgement ingest made of the cell, its cell.json record, and the
// measurements the step model is made from. No file is read to make it, so the report and the
// workbench never read a rank file again once the folder is ingested.

#include "analysis/collective_sweep.h"
#include "results/cell_record.h"
#include "results/rank_record.h"

#include <QMap>
#include <QString>
#include <QStringList>

#include <vector>

namespace commprof::analysis {

struct StudyCell {
    QString id;
    QString status; // complete | incomplete | failed | stopped | skipped_infeasible (ingest's)
    QStringList reasons;
    bool sweep = false;
    results::CellRecord record;
    // A DDP cell's ranks, each with only what the step model reads: parameters, iterations,
    // buckets, record_from_iteration and the PowerSGD rank (the other fields at their defaults).
    QMap<int, results::RankRecord> ranks;
    std::vector<SweepPoint> allReduce; // a sweep cell's all_reduce points, by size
};

} // namespace commprof::analysis
