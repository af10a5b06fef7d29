// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Joins the fragments of a trace's chunks, in file order, into one Trace: strings interned into
// the trace's table, B/E pairs matched, `ph:"M"` names applied, ac2g flows resolved. However a
// text was cut into chunks, the joined trace is the same.

#include "event_collector.h"
#include "trace_event.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace commprof::trace {

class FragmentJoiner {
public:
    explicit FragmentJoiner(Trace& trace) : trace_(trace) {}

    void reserve(std::size_t events) { trace_.events.reserve(events); }
    // Room for the whole trace, from what is joined so far: `scale` times the events and flows
    // joined (at most `maxEvents` events), in huge pages. The arrays then grow in place instead
    // of being copied at every doubling into fresh pages.
    void reserveLike(double scale, std::size_t maxEvents);

    void add(Fragment& f);

    void finish();

private:
    void pairBeginEnd();

    void applyMeta();

    // Each flow end binds to the event on its thread that starts at its timestamp (Kineto
    // writes them so), or else to the innermost one that encloses it. Kineto numbers its ac2g
    // flows with the correlation of the two events they join, so those are found by id and
    // only checked against the timestamps; any other flow is looked up by time.
    void resolveFlows();

    struct FlowEnd {
        std::int64_t id;
        std::uint32_t event;
        bool start;
    };

    void bindByTime(const std::vector<const FlowRecord*>& flows, std::vector<FlowEnd>& ends);

    Trace& trace_;
    std::vector<StackOp> stackOps_;
    std::vector<MetaRecord> meta_;
    std::vector<FlowRecord> flows_;
    std::size_t negative_ = 0, badTime_ = 0, nonObjects_ = 0, unclosed_ = 0, unmatchedEnds_ = 0;
    bool tsFloatOrMissing_ = false, tsString_ = false;
};

} // namespace commprof::trace
