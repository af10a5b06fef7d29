// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Parses a trace's text into a Trace (events, names, flows, collective arguments), without
// classifying it.
//
// Large traces are parsed in chunks on several threads. A chunk boundary is placed after a
// newline (a raw newline cannot occur inside a JSON string, so the cut is never inside one)
// and then moved to what looks like the next element of `traceEvents`. That guess is checked:
// each chunk reads on past its end until the first element that starts at or after the next
// chunk's start, and that element must be exactly where the next chunk began. A wrong guess,
// a text without newlines, or broken JSON falls back to one sequential pass from the last
// checked position, which is also where a damaged file's warnings come from. So the result
// never depends on the number of threads.

#include "trace_event.h"
#include "trace_input.h"

#include <string>

namespace commprof::trace {

struct ParseOptions {
    int threads = 1;
    std::size_t chunkBytes = std::size_t(1) << 20; // tests make it tiny to exercise the joins
};

// Throws TraceError naming source. buf is modified (separator bytes); its text is not kept.
// Throws ReadCancelled once `cancelled` says so, asked before each chunk.
Trace parseTraceBuffer(PaddedBuffer& buf, const std::string& source, const ParseOptions& options,
                       const CancelCheck& cancelled = {});

} // namespace commprof::trace
