// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// An open trace file: only a regular file is read as a trace, so a directory, a pipe or a link
// to a device is a clear error naming the file, never a read that waits or never ends.

#include <cstddef>
#include <cstdint>
#include <string>

namespace commprof::trace {

class TraceFile {
public:
    // Throws TraceError naming path when it cannot be opened or is not a regular file.
    explicit TraceFile(const std::string& path);
    ~TraceFile();
    TraceFile(const TraceFile&) = delete;
    TraceFile& operator=(const TraceFile&) = delete;

    const std::string& path() const { return path_; }
    std::uint64_t size() const { return size_; }
    // By its magic bytes, not by its name.
    bool gzip() const { return gzip_; }
    // How long the text is, as far as the file says before it is read: a plain file's size, or
    // the size a gzip trailer gives (modulo 2^32), unless that is less than the file; 0 when
    // unknown. A hint for sizing buffers, never a bound.
    std::uint64_t textSizeHint() const;
    // Up to `want` bytes from the current position; 0 at the end. Throws TraceError.
    std::size_t read(void* into, std::size_t want) const;

private:
    std::string path_;
    int fd_ = -1;
    std::uint64_t size_ = 0;
    bool gzip_ = false;
};

} // namespace commprof::trace
