// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <stdexcept>
#include <string>

namespace commprof::trace {

// Thrown when nothing usable could be read; the message names the file.
class TraceError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Valid JSON that is not a Chrome trace (no traceEvents): a rank file or a manifest beside the
// traces in a directory, which a directory listing skips.
class NotATraceError : public TraceError {
public:
    using TraceError::TraceError;
};

[[noreturn]] inline void fail(const std::string& path, const std::string& what) {
    throw TraceError(path + ": " + what);
}

} // namespace commprof::trace
