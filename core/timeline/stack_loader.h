// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Reading every rank's trace of a cell into one stacked timeline, in parallel: the files are
// parsed one per core (trace::readTraces), then each rank's lanes are built on its own worker,
// so a cell of 8 ranks takes about 8 / cores times one rank's time. A file that cannot be read
// is a warning naming it; only when none can be read is it an error.

#include "timeline_stack.h"

#include <QStringList>

#include <functional>

namespace commprof::timeline {

// A cell folder's traces (trace_rank<R>.json.gz or .json), by rank number. Empty if none.
QStringList traceFilesOfCell(const QString& cellDir);

// Throws trace::TraceError when no file could be read (every file's reason in the message).
// Once `cancelled` returns true (asked by the parser between pieces of text, and before each
// rank is laid out) the files still being read stop, nothing more is started, and loadStack
// throws trace::ReadCancelled. A rank's number: trace::rankOf, else its place in `files`.
TimelineStack loadStack(const QStringList& files, const std::function<bool()>& cancelled = {},
                        int parallel = 0);

} // namespace commprof::timeline
