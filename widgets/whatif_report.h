// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// `commprof report TRACE_DIR`: a DDP job's what-if as a report: the What if figure for the
// recommended scenario (whatif.pdf/.png/.svg as the options choose), macros.tex and whatif.json
// (what `trace whatif --json` prints).

#include "analysis/ddp_job.h"
#include "analysis/step_parts.h"
#include "analysis/whatif.h"
#include "report_writer.h"

#include <QStringList>

#include <optional>

namespace commprof::widgets {

// GUI thread only (the figure draws with a widget). Throws std::runtime_error naming a file that
// could not be written. Returns the files written. A cut or missing rank (job.incomplete) is said
// in every file: whatif.json's "incomplete" and "warnings" (as `trace whatif --json` has them), the
// macros' source and the figure's note.
QStringList writeWhatIfReport(const analysis::WhatIf& w, const analysis::DdpJob& job,
                              const std::optional<analysis::StepParts>& recorded,
                              const QString& dir, const QString& outDir,
                              const ExportOptions& options);

} // namespace commprof::widgets
