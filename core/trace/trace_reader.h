#pragma once
// Reads a Chrome trace (plain or gzip, object or bare array) into a Trace and classifies it.

#include "trace_event.h"

#include <stdexcept>
#include <string>

namespace commprof::trace {

// Thrown when nothing usable could be read; the message names the file.
class TraceError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

Trace readTraceFile(const std::string& path);
// For fuzzing and tests: parse text already in memory (plain JSON only).
Trace parseTraceText(std::string_view text, const std::string& sourceName);

} // namespace commprof::trace
