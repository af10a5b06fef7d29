// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Reads a trace file's text into one buffer with the tail padding simdjson needs, so the
// decompressed text exists exactly once in memory. Gzip (by magic bytes, not by name) is
// inflated with ISA-L. Only regular files are read, and never more than a set size: a gzip
// bomb, a directory or a link to /dev/zero is a clear error, not an exhausted machine.

#include "read_cancel.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace commprof::trace {

// The largest decompressed trace read unless told otherwise: 40 times the largest real trace
// in this project's fixtures (51 MiB), and half of simdjson's 4 GiB document limit.
inline constexpr std::uint64_t kDefaultMaxTraceBytes = std::uint64_t(2) << 30;
inline constexpr const char* kMaxTraceSizeEnv = "COMMPROF_MAX_TRACE_SIZE";
inline constexpr const char* kMaxTraceSizeFlag = "--max-trace-size";

// "1073741824", "512M", "2G", "1.5G" (binary multiples: K = 1024). nullopt when malformed.
std::optional<std::uint64_t> parseByteSize(std::string_view text);
// "2 GiB", "512 MiB", "1000 bytes".
std::string formatByteSize(std::uint64_t bytes);
// A size for a reader, to four significant digits in the largest binary unit it reaches:
// "8 MiB" for 8388600 bytes (a sweep's message rounded to its elements), "1.5 KiB", "12 B".
std::string formatRoundedByteSize(double bytes);

struct ReadOptions {
    std::uint64_t maxTextBytes = kDefaultMaxTraceBytes;
    // 0: the hardware's threads. The parser never uses more than it has chunks.
    int threads = 0;
    // Once it returns true, readTraceFile stops and throws ReadCancelled (read_cancel.h).
    CancelCheck cancelled;
    // kDefaultMaxTraceBytes, or COMMPROF_MAX_TRACE_SIZE when set. Throws TraceError when the
    // variable is malformed.
    static ReadOptions fromEnvironment();
};

// Text storage mapped straight from the kernel, with transparent huge pages where the system
// allows them: filling 50 MB of 4 KiB pages one fault at a time costs more than inflating it.
class MappedBytes {
public:
    MappedBytes() = default;
    ~MappedBytes();
    MappedBytes(MappedBytes&& other) noexcept;
    MappedBytes& operator=(MappedBytes&& other) noexcept;
    MappedBytes(const MappedBytes&) = delete;
    MappedBytes& operator=(const MappedBytes&) = delete;

    char* get() const { return data_; }
    explicit operator bool() const { return data_ != nullptr; }
    // Grows (or first allocates) to `bytes`, keeping the contents. Throws std::bad_alloc.
    void resize(std::size_t bytes);

private:
    char* data_ = nullptr;
    std::size_t bytes_ = 0;
};

struct PaddedBuffer {
    MappedBytes data;
    std::size_t size = 0;
    std::size_t capacity = 0; // usable bytes; the allocation is capacity + padding
    std::string damage;       // non-empty when the input ended early; the text is what was read
    std::string note;         // something worth a warning that did not damage the text
};

// Throws TraceError naming the file.
PaddedBuffer readTraceText(const std::string& path, const ReadOptions& options);
PaddedBuffer copyToPadded(const char* text, std::size_t size);

} // namespace commprof::trace
