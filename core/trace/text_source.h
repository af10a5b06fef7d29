// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A trace file's text from the start, a piece at a time: inflated with ISA-L as it is asked
// for, or read as it is. Only a file that readTraceText would read without a remark is read
// here: one gzip member that ends where the file ends, checksum and all. Anything else (a
// corrupt or cut stream, concatenated members, bytes after the end) makes the source
// irregular, and its reader leaves the file to readTraceText, which says what is wrong.

#include "trace_file.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

struct inflate_state;

namespace commprof::trace {

class TextSource {
public:
    // Throws TraceError as readTraceText does for a file it cannot open or refuses.
    explicit TextSource(const std::string& path);
    ~TextSource();
    TextSource(const TextSource&) = delete;
    TextSource& operator=(const TextSource&) = delete;

    // Up to `room` bytes of text into `into`; 0 at the end, or once irregular. Throws
    // TraceError when the file cannot be read.
    std::size_t read(char* into, std::size_t room);
    bool irregular() const { return irregular_; }
    // TraceFile::textSizeHint.
    std::uint64_t textSizeHint() const { return file_.textSizeHint(); }

private:
    std::size_t inflate(char* into, std::size_t room);
    bool refill();

    TraceFile file_;
    std::unique_ptr<inflate_state> state_; // gzip only
    std::vector<unsigned char> in_;
    std::uint64_t plainLeft_ = 0; // plain files: bytes still to read of the size found at open
    bool inputEnded_ = false;
    bool memberDone_ = false;
    bool irregular_ = false;
};

} // namespace commprof::trace
