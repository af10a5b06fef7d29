// SPDX-License-Identifier: GPL-3.0-or-later
#include "fragment_join.h"

#include "huge_pages.h"
#include "id_table.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>

namespace commprof::trace {
void FragmentJoiner::add(Fragment& f) {
    std::vector<std::uint32_t> map(f.strings.size());
    for (std::uint32_t i = 0; i < map.size(); ++i) {
        map[i] = trace_.strings.intern(f.strings.at(i));
    }
    auto id = [&](std::int64_t v) {
        if (isStringIdValue(v) && std::uint64_t(v - kStringIdBase) < map.size()) {
            return stringIdValue(map[std::size_t(v - kStringIdBase)]);
        }
        return v;
    };
    const auto remapped = [&](TraceEvent e) {
        e.name = map[e.name];
        e.category = map[e.category];
        e.pid = id(e.pid);
        e.tid = id(e.tid);
        return e;
    };
    const auto base = std::uint32_t(trace_.events.size());
    for (const TraceEvent& e : f.events) {
        trace_.events.push_back(remapped(e));
    }
    // Each fragment's events are freed as soon as they are joined, so a large trace never
    // holds two copies of its events.
    std::vector<TraceEvent>().swap(f.events);
    for (CommArgs& c : f.comms) {
        c.event += base;
        trace_.comms.push_back(std::move(c));
    }
    for (ShapeArgs& s : f.shapes) {
        s.event += base;
        trace_.shapes.push_back(std::move(s));
    }
    for (const StackOp& op : f.stackOps) {
        stackOps_.push_back({op.begin, remapped(op.event)});
    }
    for (MetaRecord& m : f.meta) {
        m.pid = id(m.pid);
        m.tid = id(m.tid);
        meta_.push_back(std::move(m));
    }
    for (FlowRecord fl : f.flows) {
        fl.pid = id(fl.pid);
        fl.tid = id(fl.tid);
        fl.id = id(fl.id);
        flows_.push_back(fl);
    }
    negative_ += f.negative;
    badTime_ += f.badTime;
    nonObjects_ += f.nonObjects;
    tsFloatOrMissing_ = tsFloatOrMissing_ || f.tsFloatOrMissing;
    tsString_ = tsString_ || f.tsString;
}

void FragmentJoiner::reserveLike(double scale, std::size_t maxEvents) {
    const auto scaled = [scale](std::size_t n) { return std::size_t(scale * double(n)); };
    reserveHuge(trace_.events, std::min(maxEvents, scaled(trace_.events.size())));
    reserveHuge(flows_, scaled(flows_.size()));
}

void FragmentJoiner::finish() {
    pairBeginEnd();
    applyMeta();
    resolveFlows();
    trace_.htaFacts.tsColumnIsFloat = tsFloatOrMissing_ && !tsString_;
    auto warn = [&](std::size_t n, const char* what) {
        if (n) {
            trace_.warnings.push_back(std::to_string(n) + what);
        }
    };
    warn(unclosed_, " 'B' events without a matching 'E' were dropped");
    warn(unmatchedEnds_, " 'E' events without a matching 'B' were ignored");
    warn(negative_, " events with a negative duration were dropped");
    warn(badTime_, " events with a missing, non-numeric or absurd timestamp were dropped");
    warn(nonObjects_, " entries of traceEvents are not objects and were skipped");
}

void FragmentJoiner::pairBeginEnd() {
    std::map<std::pair<std::int64_t, std::int64_t>, std::vector<TraceEvent>> stacks;
    for (const StackOp& op : stackOps_) {
        auto& stack = stacks[{op.event.pid, op.event.tid}];
        if (op.begin) {
            if (std::isfinite(op.event.startUs) && std::fabs(op.event.startUs) < 1e17) {
                stack.push_back(op.event);
            } else {
                ++badTime_;
            }
            continue;
        }
        if (stack.empty()) {
            ++unmatchedEnds_;
            continue;
        }
        TraceEvent e = stack.back();
        stack.pop_back();
        const double end = op.event.startUs;
        if (!std::isfinite(end) || std::fabs(end) >= 1e17) {
            ++badTime_;
        } else if (end < e.startUs) {
            ++negative_;
        } else {
            e.endUs = end;
            trace_.events.push_back(e);
        }
    }
    for (const auto& [key, stack] : stacks) {
        unclosed_ += stack.size();
    }
}

void FragmentJoiner::applyMeta() {
    for (MetaRecord& m : meta_) {
        switch (m.kind) {
        case MetaRecord::ProcessName:
            trace_.processes[m.pid].name = std::move(m.text);
            break;
        case MetaRecord::ProcessLabels:
            trace_.processes[m.pid].labels = std::move(m.text);
            break;
        case MetaRecord::ProcessSortIndex:
            trace_.processes[m.pid].sortIndex = m.number;
            break;
        case MetaRecord::ThreadName:
            trace_.threads[{m.pid, m.tid}].name = std::move(m.text);
            break;
        case MetaRecord::ThreadSortIndex:
            trace_.threads[{m.pid, m.tid}].sortIndex = m.number;
            break;
        }
    }
}

void FragmentJoiner::resolveFlows() {
    if (flows_.empty()) {
        return;
    }
    // The first event (in file order) per correlation, off a stream and on one.
    constexpr std::uint32_t kNone = ~std::uint32_t(0);
    struct FirstEvents {
        std::uint32_t offStream = kNone;
        std::uint32_t onStream = kNone;
    };
    IdTable<FirstEvents> byCorrelation(flows_.size());
    for (std::uint32_t i = 0; i < trace_.events.size(); ++i) {
        const TraceEvent& e = trace_.events[i];
        if (e.correlation >= 0) {
            FirstEvents& first = byCorrelation.at(e.correlation, {});
            std::uint32_t& slot = e.onStream ? first.onStream : first.offStream;
            if (slot == kNone) {
                slot = i;
            }
        }
    }
    auto matching = [&](const FlowRecord& f) -> std::optional<std::uint32_t> {
        const FirstEvents* first = f.id >= 0 ? byCorrelation.find(f.id) : nullptr;
        if (!first) {
            return std::nullopt;
        }
        for (const std::uint32_t i : {first->offStream, first->onStream}) {
            if (i != kNone) {
                const TraceEvent& e = trace_.events[i];
                if (e.pid == f.pid && e.tid == f.tid && e.startUs == f.ts) {
                    return i;
                }
            }
        }
        return std::nullopt;
    };
    std::vector<FlowEnd> ends;
    ends.reserve(flows_.size());
    std::vector<const FlowRecord*> unresolved;
    for (const FlowRecord& f : flows_) {
        if (const auto hit = matching(f)) {
            ends.push_back({f.id, *hit, f.start});
        } else {
            unresolved.push_back(&f);
        }
    }
    if (!unresolved.empty()) {
        bindByTime(unresolved, ends);
    }
    // Per flow id, its (last) start and (last) finish make the link.
    std::ranges::stable_sort(ends, {}, &FlowEnd::id);
    std::vector<FlowLink> links;
    for (std::size_t i = 0; i < ends.size();) {
        std::optional<std::uint32_t> launch, device;
        std::size_t j = i;
        for (; j < ends.size() && ends[j].id == ends[i].id; ++j) {
            (ends[j].start ? launch : device) = ends[j].event;
        }
        if (launch && device && *launch != *device) {
            links.push_back({*launch, *device});
        }
        i = j;
    }
    std::ranges::sort(links, {}, &FlowLink::launch);
    trace_.flows.insert(trace_.flows.end(), links.begin(), links.end());
}

void FragmentJoiner::bindByTime(const std::vector<const FlowRecord*>& flows,
                                std::vector<FlowEnd>& ends) {
    std::map<std::pair<std::int64_t, std::int64_t>, std::vector<std::uint32_t>> lanes;
    for (const FlowRecord* f : flows) {
        lanes.try_emplace({f->pid, f->tid});
    }
    for (std::uint32_t i = 0; i < trace_.events.size(); ++i) {
        const TraceEvent& e = trace_.events[i];
        if (auto it = lanes.find({e.pid, e.tid}); it != lanes.end()) {
            it->second.push_back(i);
        }
    }
    const auto startOf = [&](std::uint32_t i) { return trace_.events[i].startUs; };
    for (auto& [key, idx] : lanes) {
        std::ranges::stable_sort(idx, {}, startOf);
    }
    for (const FlowRecord* f : flows) {
        const auto& idx = lanes[{f->pid, f->tid}];
        auto it = std::ranges::upper_bound(idx, f->ts, {}, startOf);
        // The latest event starting at or before ts that still covers it: among the few
        // just before (nesting is shallow), prefer the innermost.
        std::optional<std::uint32_t> hit;
        for (int back = 0; back < 16 && it != idx.begin(); ++back) {
            --it;
            const TraceEvent& e = trace_.events[*it];
            if (e.startUs <= f->ts && f->ts <= e.endUs) {
                hit = *it;
                break;
            }
        }
        if (hit) {
            ends.push_back({f->id, *hit, f->start});
        }
    }
}

} // namespace commprof::trace
