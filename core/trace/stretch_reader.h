// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Reads one bracketed stretch of `traceEvents` ('[' + elements + ']') into a Fragment, and says
// how the stretch ended: where the array closed, where reading stopped, or where the JSON broke.
// The in-memory parser (trace_parse.cpp) and the streamed reader (trace_stream.cpp) both read
// their chunks through it.

#include "event_collector.h"

#include <simdjson.h>

#include <cstddef>
#include <string>

namespace commprof::trace {

// How reading a bracketed stretch of traceEvents ended.
struct Stretch {
    enum Kind { Stopped, Closed, Broken } kind = Broken;
    std::size_t next = std::string::npos;     // Stopped: the first element at or after stopAt
    std::size_t arrayEnd = std::string::npos; // Closed: the position of traceEvents' ']'
    bool closedByUs = false; // Closed by the bracket we appended: the text ended first
    std::size_t elementStart = std::string::npos; // Broken: where the unreadable element starts
    bool atEnd = false;                           // Broken by running into the end of the stretch
    bool refused = false;    // simdjson refused the stretch as a whole (stage 1)
    bool nothingRead = true; // no element was read (a refused stretch, or one that breaks
                             // in its first element)
    std::string error;
};

// doc holds '[' + text[from, to) + ']' at `copy`; copy + 1 corresponds to text + from.
// Elements starting at or after stopAt are left unread.
Stretch readStretch(simdjson::ondemand::parser& parser, char* copy, std::size_t copyLen,
                    std::size_t copyCapacity, std::size_t from, std::size_t stopAt,
                    Fragment& fragment);

} // namespace commprof::trace
