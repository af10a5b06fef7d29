// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One event's full JSON, for a details panel. A parsed Trace keeps no args (that would double
// its memory); each TraceEvent keeps the byte offset of its object in the decompressed text,
// and this reads that object back from the trace's file on demand. The first call decompresses
// the file once (about as long as reading it did) and keeps the text, so later calls on the
// same reader cost microseconds. Not thread-safe: use one reader per thread.

#include "trace_input.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace commprof::trace {

class EventDetails {
public:
    explicit EventDetails(std::string path, ReadOptions options = ReadOptions::fromEnvironment())
        : path_(std::move(path)), options_(std::move(options)) {}

    // The event object exactly as written at `offset`. Throws TraceError when the file no
    // longer holds an object there (it changed since it was parsed).
    std::string objectJson(std::uint64_t offset);
    // Its `args`, each value as compact JSON text, in the order written.
    std::vector<std::pair<std::string, std::string>> args(std::uint64_t offset);

private:
    std::string path_;
    ReadOptions options_;
    std::optional<PaddedBuffer> text_;
};

} // namespace commprof::trace
