#pragma once
// Reading every rank's trace of a cell into one stacked timeline, in parallel: each file is
// parsed and laid out on its own worker (one parser thread per file when there are several),
// so a cell of 8 ranks takes about 8 / cores times one rank's time. A file that cannot be read
// is a warning naming it; only when none can be read is it an error.

#include "timeline_stack.h"

#include <QStringList>

#include <functional>

namespace commprof::timeline {

// A cell folder's traces (trace_rank<R>.json.gz or .json), by rank number. Empty if none.
QStringList traceFilesOfCell(const QString& cellDir);

// Throws trace::TraceError when no file could be read (every file's reason in the message),
// and jobs-style cancellation is left to `cancelled`: when it returns true the remaining files
// are skipped and loadStack returns what it has.
TimelineStack loadStack(const QStringList& files, const std::function<bool()>& cancelled = {},
                        int parallel = 0);

} // namespace commprof::timeline
