// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Stopping a read nobody wants any more (the workbench asked for another trace meanwhile): the
// reader asks a predicate between pieces of work, and once it says so, stops there and throws
// ReadCancelled instead of parsing the rest. A superseded load then gives its cores back at
// once, rather than parsing to the end a trace that will never be shown.

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>

namespace commprof::trace {

// True once the read should stop. Asked before a file, between pieces of text and before the
// classification, possibly from several parsing threads at once: it must be cheap and
// thread-safe (an atomic load). Empty: the read is never stopped.
using CancelCheck = std::function<bool()>;

// Not a TraceError: nothing is wrong with the file, and nothing read is kept. What it carries
// is how far the read got, for tests to see that it stopped early.
class ReadCancelled : public std::exception {
public:
    ReadCancelled(std::uint64_t textBytes, std::size_t piecesParsed)
        : textBytes_(textBytes), piecesParsed_(piecesParsed) {}
    const char* what() const noexcept override { return "trace read cancelled"; }
    // Text inflated (or read) before the read stopped.
    std::uint64_t textBytes() const { return textBytes_; }
    // Pieces or chunks of it parsed when it stopped while parsing; 0 when it stopped before the
    // text was read, or after it was parsed whole.
    std::size_t piecesParsed() const { return piecesParsed_; }

private:
    std::uint64_t textBytes_;
    std::size_t piecesParsed_;
};

inline bool isCancelled(const CancelCheck& cancelled) {
    return cancelled && cancelled();
}

} // namespace commprof::trace
