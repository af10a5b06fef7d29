// SPDX-License-Identifier: GPL-3.0-or-later
#include "rank_matching.h"

#include <algorithm>
#include <optional>

namespace commprof::timeline {
namespace {

const trace::CommArgs* commArgsOf(const trace::Trace& t, std::uint32_t event) {
    const auto it =
        std::lower_bound(t.comms.begin(), t.comms.end(), event,
                         [](const trace::CommArgs& c, std::uint32_t e) { return c.event < e; });
    return it != t.comms.end() && it->event == event ? &*it : nullptr;
}

// Events of `name` in start order (then index), so occurrence k means the same on each rank.
std::vector<std::uint32_t> occurrences(const trace::Trace& t, std::uint32_t name) {
    std::vector<std::uint32_t> out;
    for (std::uint32_t i = 0; i < t.events.size(); ++i) {
        if (t.events[i].name == name) {
            out.push_back(i);
        }
    }
    std::sort(out.begin(), out.end(), [&](std::uint32_t a, std::uint32_t b) {
        return t.events[a].startUs != t.events[b].startUs
                   ? t.events[a].startUs < t.events[b].startUs
                   : a < b;
    });
    return out;
}

} // namespace

MatchedSlices matchAcrossRanks(const TimelineStack& stack, SliceRef slice) {
    MatchedSlices m;
    if (!slice.valid() || std::size_t(slice.rank) >= stack.ranks.size()) {
        return m;
    }
    const trace::Trace& own = stack.ranks[std::size_t(slice.rank)]->trace;
    if (slice.event >= own.events.size()) {
        return m;
    }
    const trace::TraceEvent& e = own.events[slice.event];
    const std::string& name = own.name(e);
    const trace::CommArgs* args = commArgsOf(own, slice.event);
    const bool bySeq = args && args->seq && !args->processGroup.empty();
    std::size_t ordinal = 0;
    if (bySeq) {
        m.matchedBy = QString("process group %1, Seq %2")
                          .arg(QString::fromStdString(args->processGroup))
                          .arg(*args->seq);
    } else {
        const auto mine = occurrences(own, e.name);
        ordinal = std::size_t(std::find(mine.begin(), mine.end(), slice.event) - mine.begin());
        m.matchedBy = QString("name and occurrence %1").arg(ordinal + 1);
    }
    for (std::size_t r = 0; r < stack.ranks.size(); ++r) {
        const trace::Trace& t = stack.ranks[r]->trace;
        std::optional<std::uint32_t> found;
        if (int(r) == slice.rank) {
            found = slice.event;
        } else if (bySeq) {
            for (const auto& c : t.comms) {
                if (c.seq == args->seq && c.processGroup == args->processGroup &&
                    t.events[c.event].deviceWork() == e.deviceWork()) {
                    found = c.event;
                    break;
                }
            }
        } else if (const auto id = t.strings.find(name)) {
            const auto theirs = occurrences(t, *id);
            if (ordinal < theirs.size()) {
                found = theirs[ordinal];
            }
        }
        if (found) {
            m.slices.push_back({int(r), *found});
            m.startsUs.push_back(stack.toDisplay(r, t.events[*found].startUs));
        }
    }
    if (!m.slices.empty()) {
        const auto [lo, hi] = std::minmax_element(m.startsUs.begin(), m.startsUs.end());
        m.skewUs = *hi - *lo;
        m.firstRank = m.slices[std::size_t(lo - m.startsUs.begin())].rank;
        m.lastRank = m.slices[std::size_t(hi - m.startsUs.begin())].rank;
    }
    return m;
}

} // namespace commprof::timeline
