// SPDX-License-Identifier: GPL-3.0-or-later
#include "rank_timeline.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

namespace commprof::timeline {
namespace {

// Two times closer than this are the same time: the rounding of a double at that magnitude.
double nestingSlackUs(double t) {
    return std::max(1e-6, 8 * DBL_EPSILON * std::abs(t));
}

// Call-stack depth within one thread or stream: one row per depth, so a ProfilerStep and the
// ops inside it are both visible. The rows of `events` (indices into trace.events, any order),
// row 0 first.
//
// The rule, in start order (a longer slice before a shorter one that starts with it): a slice
// goes one row below the innermost slice still open when it starts. A slice that outlives the
// one above it (a partial overlap, which Chrome traces allow) still gets that row, so no two
// slices of one row ever overlap and none is drawn over another. A slice that starts when the
// one before it ends (within rounding) is its sibling, not its child.
std::vector<SliceRow> assignDepths(const trace::Trace& trace, std::vector<std::uint32_t> events) {
    const auto& ev = trace.events;
    // By start, the enclosing slice first.
    std::ranges::sort(events, {},
                      [&](std::uint32_t i) { return std::tuple(ev[i].startUs, -ev[i].endUs, i); });
    std::vector<SliceRow> rows;
    std::vector<double> openEnds; // the end of the slice open on each row, innermost last
    for (const std::uint32_t i : events) {
        const auto& e = ev[i];
        const double slack = nestingSlackUs(e.startUs);
        while (!openEnds.empty() && openEnds.back() <= e.startUs + slack) {
            openEnds.pop_back();
        }
        const std::size_t depth = openEnds.size();
        if (depth == rows.size()) {
            rows.emplace_back();
        }
        rows[depth].push(e.startUs, std::max(e.startUs, e.endUs), i, e.name, e.cls);
        openEnds.push_back(std::max(e.startUs, e.endUs));
    }
    return rows;
}

QString trimmed(const std::string& s) {
    return QString::fromStdString(s).trimmed();
}

// Numbers first in their own order; string pids and tids (interned) after every number.
std::pair<int, std::int64_t> orderKey(std::optional<std::int64_t> sortIndex, std::int64_t id) {
    return sortIndex ? std::pair(0, *sortIndex) : std::pair(trace::isStringIdValue(id) ? 1 : 0, id);
}

ClassLane classLane(trace::EventClass cls, const trace::SpanSet& set) {
    ClassLane lane;
    lane.cls = cls;
    lane.title = trace::toString(cls);
    for (const auto& s : set.spans()) {
        lane.row.pushSpan(s.start, s.end);
    }
    lane.row.buildLevels();
    return lane;
}

ProcessGroup makeGroup(const trace::Trace& t, std::int64_t pid) {
    ProcessGroup g;
    g.pid = pid;
    QString name, labels;
    if (auto p = t.processes.find(pid); p != t.processes.end()) {
        name = trimmed(p->second.name);
        labels = trimmed(p->second.labels);
    }
    if (!labels.isEmpty()) {
        g.title = name.isEmpty() ? labels : labels + " · " + name;
    } else if (!name.isEmpty()) {
        g.title = name;
    }
    g.detail = "pid " + QString::fromStdString(t.idText(pid));
    return g;
}

} // namespace

double RankTimeline::selfTimeUs(std::uint32_t event) const {
    const SlicePlace& p = places[event];
    const auto& rows = groups[p.group].lanes[p.lane].rows;
    const SliceRow& row = rows[p.depth];
    const std::size_t i = row.indexOf(event, trace.events[event].startUs);
    if (i == row.size()) {
        return trace.events[event].durationUs();
    }
    const double children =
        p.depth + 1 < rows.size() ? rows[p.depth + 1].coveredWithin(row.starts[i], row.ends[i]) : 0;
    return std::max(0.0, (row.ends[i] - row.starts[i]) - children);
}

FlowIndex::FlowIndex(const trace::Trace& trace) : byLaunch_(trace.flows), byDevice_(trace.flows) {
    std::ranges::sort(byLaunch_, {}, [](const auto& f) { return std::pair(f.launch, f.device); });
    std::ranges::sort(byDevice_, {}, [](const auto& f) { return std::pair(f.device, f.launch); });
    for (std::uint32_t i = 0; i < trace.events.size(); ++i) {
        if (trace.events[i].correlation >= 0) {
            byCorrelation_.emplace_back(trace.events[i].correlation, i);
        }
    }
    std::sort(byCorrelation_.begin(), byCorrelation_.end());
}

std::vector<FlowPartner> FlowIndex::partners(const trace::Trace& trace, std::uint32_t event) const {
    std::vector<FlowPartner> out;
    auto add = [&](std::uint32_t other, bool flow) {
        if (other == event || other >= trace.events.size()) {
            return;
        }
        for (auto& p : out) {
            if (p.event == other) {
                p.viaFlow = p.viaFlow || flow;
                p.viaCorrelation = p.viaCorrelation || !flow;
                return;
            }
        }
        out.push_back({other, trace.events[other].deviceWork(), flow, !flow});
    };
    for (const auto& f : std::ranges::equal_range(byLaunch_, event, {}, &trace::FlowLink::launch)) {
        add(f.device, true);
    }
    for (const auto& f : std::ranges::equal_range(byDevice_, event, {}, &trace::FlowLink::device)) {
        add(f.launch, true);
    }
    const auto& self = trace.events[event];
    if (self.correlation >= 0) {
        // Only across the host/device line: two host spans can share an id by accident of
        // the producer (a ROCm runtime call and its own API span), and neither launched the other.
        for (const auto& [id, other] :
             std::ranges::equal_range(byCorrelation_, self.correlation, {},
                                      &std::pair<std::int64_t, std::uint32_t>::first)) {
            if (trace.events[other].deviceWork() != self.deviceWork()) {
                add(other, false);
            }
        }
    }
    std::ranges::sort(out, {}, [&](const FlowPartner& p) { return trace.events[p.event].startUs; });
    return out;
}

RankTimeline buildRankTimeline(trace::Trace trace, int rank, const QString& path) {
    RankTimeline r;
    r.rank = rank;
    r.path = path;
    r.classes = trace::classSpans(trace);
    r.summary = trace::summarize(trace);
    r.steps = trace::stepWindows(trace);
    r.classLanes.push_back(classLane(trace::EventClass::Compute, r.classes.compute));
    r.classLanes.push_back(classLane(trace::EventClass::Communication, r.classes.communication));
    r.classLanes.push_back(classLane(trace::EventClass::Bookkeeping, r.classes.bookkeeping));
    r.classLanes.push_back(classLane(trace::EventClass::Memory, r.classes.memory));

    std::map<std::int64_t, std::map<std::int64_t, std::vector<std::uint32_t>>> byThread;
    r.startUs = std::numeric_limits<double>::max();
    r.endUs = std::numeric_limits<double>::lowest();
    for (std::uint32_t i = 0; i < trace.events.size(); ++i) {
        const auto& e = trace.events[i];
        byThread[e.pid][e.tid].push_back(i);
        r.startUs = std::min(r.startUs, e.startUs);
        r.endUs = std::max(r.endUs, e.endUs);
    }
    if (trace.events.empty()) {
        r.startUs = 0;
        r.endUs = 1;
    }
    r.places.resize(trace.events.size());
    for (auto& [pid, threads] : byThread) {
        ProcessGroup g = makeGroup(trace, pid);
        for (auto& [tid, events] : threads) {
            ThreadLane lane;
            lane.pid = pid;
            lane.tid = tid;
            lane.device = std::ranges::any_of(events, [&](std::uint32_t i) {
                return trace.events[i].deviceWork() || trace.events[i].onStream;
            });
            if (auto t = trace.threads.find({pid, tid}); t != trace.threads.end()) {
                lane.title = trimmed(t->second.name);
            }
            if (lane.title.isEmpty()) {
                lane.title = QString(lane.device ? "stream %1" : "thread %1")
                                 .arg(QString::fromStdString(trace.idText(tid)));
            }
            lane.rows = assignDepths(trace, std::move(events));
            for (auto& row : lane.rows) {
                row.buildLevels();
            }
            g.device = g.device || lane.device;
            g.lanes.push_back(std::move(lane));
        }
        std::ranges::stable_sort(g.lanes, {}, [&](const ThreadLane& l) {
            auto t = trace.threads.find({l.pid, l.tid});
            return orderKey(t != trace.threads.end() ? t->second.sortIndex : std::nullopt, l.tid);
        });
        if (g.title.isEmpty()) {
            g.title = QString(g.device ? "device %1" : "process %1")
                          .arg(QString::fromStdString(trace.idText(pid)));
        }
        r.groups.push_back(std::move(g));
    }
    std::ranges::stable_sort(r.groups, {}, [&](const ProcessGroup& g) {
        auto p = trace.processes.find(g.pid);
        return orderKey(p != trace.processes.end() ? p->second.sortIndex : std::nullopt, g.pid);
    });
    for (std::size_t g = 0; g < r.groups.size(); ++g) {
        for (std::size_t l = 0; l < r.groups[g].lanes.size(); ++l) {
            const auto& rows = r.groups[g].lanes[l].rows;
            for (std::size_t d = 0; d < rows.size(); ++d) {
                for (const std::uint32_t e : rows[d].events) {
                    r.places[e] = {std::uint32_t(g), std::uint32_t(l), std::uint32_t(d)};
                }
            }
        }
    }
    r.flows = FlowIndex(trace);
    r.trace = std::move(trace);
    return r;
}

} // namespace commprof::timeline
