#pragma once
// Writes a report directory: cells.csv, macros.tex and every figure as PDF and PNG, rendered
// offscreen by the workbench's own plot code.

#include "report/report_data.h"

#include <QStringList>

namespace commprof::widgets {

// Returns the files written; throws std::runtime_error naming a file that could not be.
QStringList writeReport(store::Database& db, const report::ReportData& data, const QString& outDir);

} // namespace commprof::widgets
