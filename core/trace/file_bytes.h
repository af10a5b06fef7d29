#pragma once
// Whole-file reads into a buffer with the tail padding simdjson needs, so the decompressed
// text exists exactly once in memory.

#include <cstddef>
#include <memory>
#include <string>

namespace commprof::trace {

struct PaddedBuffer {
    std::unique_ptr<char[]> data;
    std::size_t size = 0;
    std::size_t capacity = 0; // usable bytes; the allocation is capacity + padding
    std::string damage;       // non-empty when the input ended early; the text is what was read
};

// Detects gzip by its magic bytes, not by the file name. Throws TraceError.
PaddedBuffer readMaybeGzip(const std::string& path);
PaddedBuffer copyToPadded(const char* text, std::size_t size);

} // namespace commprof::trace
