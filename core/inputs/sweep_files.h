// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A collective sweep read from its folder: every sweep_rank{R}.json, checked by the rank
// file's reader (results/rank_file.h), then merged (analysis/collective_sweep.h).

#include "analysis/collective_sweep.h"

#include <QString>
#include <QStringList>

#include <vector>

namespace commprof::inputs {

// The sweep_rank*.json files of one directory, merged across ranks. Problems (a file that does
// not parse, ranks that disagree on sizes) are added to *problems naming the file.
std::vector<analysis::SweepSeries> readSweep(const QString& dir, QStringList* problems = nullptr);

} // namespace commprof::inputs
