// SPDX-License-Identifier: GPL-3.0-or-later
#include "rank_timeline.h"

#include <algorithm>
#include <limits>
#include <map>

namespace commprof::timeline {
namespace {

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

const SliceRow& RankTimeline::rowOf(std::uint32_t event) const {
    const SlicePlace& p = places[event];
    return groups[p.group].lanes[p.lane].rows[p.depth];
}

std::size_t RankTimeline::indexInRow(std::uint32_t event) const {
    return rowOf(event).indexOf(event, trace.events[event].startUs);
}

double RankTimeline::selfTimeUs(std::uint32_t event) const {
    const SlicePlace& p = places[event];
    const auto& rows = groups[p.group].lanes[p.lane].rows;
    const std::size_t i = indexInRow(event);
    return i < rows[p.depth].size() ? timeline::selfTimeUs(rows, p.depth, i)
                                    : trace.events[event].durationUs();
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
