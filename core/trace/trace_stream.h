// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Parses a trace file while it is inflated, a piece of a few hundred kilobytes at a time, so the
// text never exists whole in memory: each piece is parsed as soon as it is complete, by the reading
// thread or by another, while the next one is inflated. Inflating overlaps parsing, no page of
// a text-sized buffer has to be faulted in and cleared, and the pieces' buffers are reused.
//
// A piece ends at a guessed element boundary of `traceEvents` (a ',' then, after a newline, a
// '{'): its document is '[' + the elements + ']', the ']' written over that ','. The guess
// holds exactly when simdjson reads the piece to that very ']' without error; the first piece
// starts at the array's first element, so by induction every piece does. A guess that does
// not hold, and anything else out of the ordinary (a gzip error, a cut stream, bytes after the
// end, a text over the size limit, an array that does not end where the text does) gives
// nullopt: the caller then reads the file whole with readTraceText and parseTraceBuffer, whose
// answer (a partial trace with warnings, or an error) is the one for such a file. A file read
// here gives the same Trace as that path, event for event.

#include "trace_event.h"
#include "trace_input.h"

#include <cstddef>
#include <optional>
#include <string>

namespace commprof::trace {

struct StreamOptions {
    int threads = 1; // parsing threads, the reading one included
    // A quarter of a megabyte: a piece's text and simdjson's index of it then stay in the
    // core's own cache while it is parsed (a megabyte measured 8 % more CPU time).
    std::size_t pieceBytes = std::size_t(256) << 10;
    std::uint64_t maxTextBytes = kDefaultMaxTraceBytes;
};

// Throws TraceError as readTraceText does for a file it cannot open or refuses; nullopt when the
// file must be read whole (see above). The trace is not classified yet (finishTrace). Throws
// ReadCancelled once `cancelled` says so, asked after each piece is queued.
std::optional<Trace> readTraceStreamed(const std::string& path, const StreamOptions& options,
                                       const CancelCheck& cancelled = {});

} // namespace commprof::trace
