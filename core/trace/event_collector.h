// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Turns the JSON objects of one stretch of `traceEvents` into a Fragment: the duration events,
// metadata, flows and collective arguments found there, with strings interned locally. The
// parser gives each chunk of a large trace its own collector and joins the fragments in file
// order (trace_parse.cpp), so collectors never share anything.

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

class EventCollector {
public:
    // base: where this collector's text starts in the whole decompressed text, so event
    // offsets are file-wide. origin: the start of the buffer the parser reads.
    EventCollector(Fragment& out, const char* origin, std::uint64_t base)
        : out_(out), origin_(origin), base_(base) {}

    // One element of traceEvents. Throws simdjson_error on malformed JSON; then nothing of
    // this element was added.
    void add(simdjson::ondemand::value element);

private:
    struct Element; // one element's fields, read before its ph says what it is
    // The phases of add(): its fields, then what its ph makes of them.
    void readFields(simdjson::ondemand::object obj, Element& el);
    void readTs(simdjson::ondemand::value& value, Element& el);
    void keepComplete(Element& el); // ph "X"
    void keepMeta(Element& el);     // ph "M"
    void readArgs(simdjson::ondemand::object args, TraceEvent& e, MetaRecord& meta, bool& hasMeta);
    // The last id read from one field, by its JSON token: most events repeat their
    // neighbours' pid and tid, and the same bytes always read as the same id.
    struct LastId {
        std::string_view token;
        std::int64_t id = 0;
    };
    std::int64_t readId(simdjson::ondemand::value& value, LastId& last);
    std::int64_t readId(simdjson::ondemand::value& value);

    Fragment& out_;
    const char* origin_;
    std::uint64_t base_;
    CommArgs comm_; // scratch for the element being read
    // The element is an op whose input shapes are kept (ShapeArgs), and what its args said.
    bool wantShape_ = false;
    std::optional<ShapeArgs> shape_;
    LastId lastPid_, lastTid_;
};

} // namespace commprof::trace
