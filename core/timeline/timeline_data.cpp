#include "timeline_data.h"

#include <algorithm>
#include <limits>
#include <map>

namespace commprof::timeline {
namespace {

void finish(Lane& lane) {
    lane.maxEndPrefix.resize(lane.spans.size());
    double m = -std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < lane.spans.size(); ++i) {
        m = std::max(m, lane.spans[i].end);
        lane.maxEndPrefix[i] = m;
    }
}

Lane classLane(const QString& title, trace::EventClass cls, const trace::SpanSet& set) {
    Lane l;
    l.title = title;
    l.classLane = true;
    l.cls = cls;
    l.spans = set.spans();
    finish(l);
    return l;
}

} // namespace

std::size_t Lane::firstOverlapping(double t) const {
    // maxEndPrefix is non-decreasing: the first span whose running maximum end passes t.
    return std::size_t(std::upper_bound(maxEndPrefix.begin(), maxEndPrefix.end(), t) -
                       maxEndPrefix.begin());
}

double Lane::lengthWithin(trace::Span w) const {
    double total = 0;
    for (std::size_t i = firstOverlapping(w.start); i < spans.size() && spans[i].start < w.end;
         ++i) {
        total += std::max(0.0, std::min(spans[i].end, w.end) - std::max(spans[i].start, w.start));
    }
    return total;
}

TimelineData buildTimeline(trace::Trace trace) {
    TimelineData d;
    const trace::ClassSpans spans = trace::classSpans(trace);
    d.steps = trace::stepWindows(trace);
    d.lanes.push_back(classLane("compute", trace::EventClass::Compute, spans.compute));
    d.lanes.push_back(
        classLane("communication", trace::EventClass::Communication, spans.communication));
    d.lanes.push_back(classLane("bookkeeping", trace::EventClass::Bookkeeping, spans.bookkeeping));

    // One raw lane per (pid, tid): threads on the host, streams on the device.
    std::map<std::pair<std::int64_t, std::int64_t>, std::vector<std::uint32_t>> byThread;
    d.startUs = std::numeric_limits<double>::max();
    d.endUs = std::numeric_limits<double>::lowest();
    for (std::uint32_t i = 0; i < trace.events.size(); ++i) {
        const auto& e = trace.events[i];
        byThread[{e.pid, e.tid}].push_back(i);
        d.startUs = std::min(d.startUs, e.startUs);
        d.endUs = std::max(d.endUs, e.endUs);
    }
    if (trace.events.empty()) {
        d.startUs = 0;
        d.endUs = 1;
    }
    for (auto& [key, idx] : byThread) {
        std::sort(idx.begin(), idx.end(), [&](std::uint32_t a, std::uint32_t b) {
            return trace.events[a].startUs < trace.events[b].startUs;
        });
        Lane l;
        const bool device = std::any_of(idx.begin(), idx.end(),
                                        [&](std::uint32_t i) { return trace.events[i].onStream; });
        l.title =
            QString("%1 %2 / %3").arg(device ? "stream" : "thread").arg(key.first).arg(key.second);
        l.events = idx;
        l.spans.reserve(idx.size());
        for (std::uint32_t i : idx) {
            l.spans.push_back({trace.events[i].startUs, trace.events[i].endUs});
        }
        finish(l);
        d.lanes.push_back(std::move(l));
    }
    d.trace = std::move(trace);
    return d;
}

} // namespace commprof::timeline
