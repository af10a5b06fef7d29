// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Reads a Chrome trace (plain or gzip, object or bare array) into a classified Trace with its
// collective records.

#include "read_cancel.h"
#include "trace_error.h"
#include "trace_event.h"
#include "trace_input.h"
#include "trace_parse.h"

#include <string>
#include <string_view>

namespace commprof::trace {

// options: size limit, threads and what stops it (ReadCancelled); by default
// COMMPROF_MAX_TRACE_SIZE or the built-in limit.
Trace readTraceFile(const std::string& path,
                    const ReadOptions& options = ReadOptions::fromEnvironment());
// For fuzzing and tests: parse text already in memory (plain JSON only).
Trace parseTraceText(std::string_view text, const std::string& sourceName,
                     const ParseOptions& options = {});

// What the parser does after reading: classification, then the collective records.
void finishTrace(Trace& trace);

} // namespace commprof::trace
