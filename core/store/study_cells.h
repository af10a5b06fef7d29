// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The cells of a results folder as `recommend` takes them (analysis/study_cell.h), from the
// store alone: what ingest judged and stored, never the rank files again.

#include "analysis/study_cell.h"
#include "store/cell_row.h"
#include "store/sqlite_db.h"

#include <vector>

namespace commprof::store {

// Every cell of the run by id; ranks (of a complete DDP cell) and all_reduce points (of a
// complete sweep) are filled only where `recommend` reads them.
std::vector<analysis::StudyCell> studyCells(Database& db, const QString& runDir);
// The same, from the run's rows already read (the report has them: one query, not two).
std::vector<analysis::StudyCell> studyCells(Database& db, const std::vector<CellRow>& rows);

} // namespace commprof::store
