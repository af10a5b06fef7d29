// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Turns the JSON objects of one stretch of `traceEvents` into a Fragment: the duration events,
// metadata, flows and collective arguments found there, with strings interned locally. The
// parser gives each chunk of a large trace its own collector and joins the fragments in file
// order (trace_parse.cpp), so collectors never share anything.
//
// readStretch collects one bracketed stretch ('[' + elements + ']') and says how it ended:
// where the array closed, where reading stopped, or where the JSON broke. The in-memory parser
// (trace_parse.cpp) and the streamed reader (trace_stream.cpp) both read their chunks through
// it.

#include "trace_event.h"

#include <simdjson.h>

#include <cstdint>
#include <string>
#include <vector>

namespace commprof::trace {

// A `B` or `E` event, kept in file order and paired per (pid, tid) after the join.
struct StackOp {
    bool begin = false;
    TraceEvent event; // for a B: everything but endUs; for an E: startUs holds its ts
};

// `ph:"M"` records: process_name, process_labels, process_sort_index, thread_name,
// thread_sort_index.
struct MetaRecord {
    enum Kind : std::uint8_t {
        ProcessName,
        ProcessLabels,
        ProcessSortIndex,
        ThreadName,
        ThreadSortIndex
    } kind = ProcessName;
    std::int64_t pid = 0;
    std::int64_t tid = 0;
    std::string text;
    std::int64_t number = 0;
};

// One end of an `ac2g` flow.
struct FlowRecord {
    std::int64_t id = 0;
    std::int64_t pid = 0;
    std::int64_t tid = 0;
    double ts = 0;
    bool start = false;
};

struct Fragment {
    StringTable strings; // local ids; the join maps them into the trace's table
    std::vector<TraceEvent> events;
    std::vector<CommArgs> comms;   // event indices local to this fragment
    std::vector<ShapeArgs> shapes; // likewise
    std::vector<StackOp> stackOps;
    std::vector<MetaRecord> meta;
    std::vector<FlowRecord> flows;
    std::size_t elements = 0; // objects read whole, whatever they held
    std::size_t negative = 0;
    std::size_t badTime = 0;
    std::size_t nonObjects = 0;
    bool tsFloatOrMissing = false; // see HtaFileFacts
    bool tsString = false;
};

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
