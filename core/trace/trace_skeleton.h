// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The top level of a trace document around `traceEvents`: whether the root is a bare array,
// where the events start, and the `distributedInfo` and `otherData` objects written before or
// after them.

#include "json_scan.h"
#include "trace_event.h"

#include <cstddef>
#include <optional>
#include <string>

namespace commprof::trace {

struct Skeleton {
    bool rootIsArray = false;
    std::size_t arrayStart = std::string::npos; // just after the '[' of the events
    std::optional<std::string> distributedInfo; // the objects' text, as written
    std::optional<std::string> otherData;
};

// Reads "key": value pairs of the root object from p until traceEvents (stopAtEvents) or the
// end.
void scanKeys(const TopLevel& top, const char* text, std::size_t size, std::size_t p, Skeleton& sk,
              bool stopAtEvents);

// Finds the root and, in an object, the keys before traceEvents. True when traceEvents is an
// array that starts within text[0, size): then sk.arrayStart is just after its '['. On the
// start of a longer text, false says only that these bytes do not show it.
bool findEvents(const TopLevel& top, const char* text, std::size_t size, Skeleton& sk);

// Fills trace.distributed and trace.producerRank from the objects found.
void readTopLevelObjects(const Skeleton& sk, Trace& trace);

} // namespace commprof::trace
