#pragma once
// cells.csv: every cell, incomplete ones included with their status and reasons.

#include "store/queries.h"

#include <QString>

namespace commprof::report {

QString cellsCsv(const std::vector<store::CellRow>& cells);

} // namespace commprof::report
