// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The cell.json beside a results cell's traces, read into the settings its ranks ran with
// (analysis/cell_settings.h).

#include "analysis/cell_settings.h"

#include <QStringList>

#include <optional>

namespace commprof::inputs {

// The cell.json in the folder of `paths`' first entry (a folder, or a trace file in one):
// nullopt when there is none. Throws trace::TraceError naming the file and the field when one
// is there but is not a cell's record.
std::optional<analysis::CellSettings> cellSettingsBeside(const QStringList& paths);

} // namespace commprof::inputs
