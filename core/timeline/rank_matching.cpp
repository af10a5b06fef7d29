// SPDX-License-Identifier: GPL-3.0-or-later
#include "rank_matching.h"

#include "trace/collective_places.h"

#include <algorithm>
#include <optional>

namespace commprof::timeline {
namespace {

// Where a slice stands on its rank, in a form every rank can look up.
struct Place {
    std::optional<trace::CollectivePlace> collective; // the slice is one of the trace's collectives
    bool onDevice = false;
    std::optional<int> step; // otherwise: its name's occurrence within its step
    std::size_t occurrence = 0;
};

// Events named `name` that start in `step`'s window (every event without steps), in start
// order, then index: occurrence k means the same on each rank.
std::vector<std::uint32_t> occurrences(const RankTimeline& rank, std::uint32_t name,
                                       std::optional<int> step) {
    const trace::Trace& t = rank.trace;
    std::vector<std::uint32_t> out;
    for (std::uint32_t i = 0; i < t.events.size(); ++i) {
        if (t.events[i].name == name && trace::stepAt(rank.steps, t.events[i].startUs) == step) {
            out.push_back(i);
        }
    }
    std::ranges::stable_sort(out, {}, [&](std::uint32_t i) { return t.events[i].startUs; });
    return out;
}

std::optional<std::uint32_t> collectiveAt(const RankTimeline& rank, const Place& place) {
    const trace::Trace& t = rank.trace;
    for (const trace::CollectivePlace& p : trace::collectivePlaces(t.collectives, rank.steps)) {
        const trace::CollectiveRecord& c = t.collectives[p.record];
        if (p == *place.collective && c.onDevice == place.onDevice) {
            return c.event;
        }
    }
    return std::nullopt;
}

QString stepText(std::optional<int> step) {
    return step ? QString("step %1").arg(*step) : QString("outside every step");
}

QString describe(const Place& place) {
    if (const auto& c = place.collective) {
        if (c->seq) {
            return QString("process group %1, Seq %2")
                .arg(QString::fromStdString(c->processGroup))
                .arg(*c->seq);
        }
        return QString("%1, collective %2 of process group %3")
            .arg(stepText(c->step))
            .arg(c->ordinal + 1)
            .arg(QString::fromStdString(c->processGroup));
    }
    return QString("%1, occurrence %2 of its name")
        .arg(stepText(place.step))
        .arg(place.occurrence + 1);
}

} // namespace

MatchedSlices matchAcrossRanks(const TimelineStack& stack, SliceRef slice) {
    MatchedSlices m;
    if (!slice.valid() || std::size_t(slice.rank) >= stack.ranks.size()) {
        return m;
    }
    const RankTimeline& ownRank = *stack.ranks[std::size_t(slice.rank)];
    const trace::Trace& own = ownRank.trace;
    if (slice.event >= own.events.size()) {
        return m;
    }
    const trace::TraceEvent& e = own.events[slice.event];
    Place place;
    for (const trace::CollectivePlace& p :
         trace::collectivePlaces(own.collectives, ownRank.steps)) {
        if (own.collectives[p.record].event == slice.event) {
            place.collective = p;
            place.onDevice = own.collectives[p.record].onDevice;
            break;
        }
    }
    if (!place.collective) {
        place.step = trace::stepAt(ownRank.steps, e.startUs);
        const auto mine = occurrences(ownRank, e.name, place.step);
        place.occurrence = std::size_t(std::ranges::find(mine, slice.event) - mine.begin());
    }
    m.matchedBy = describe(place);
    const std::string& name = own.name(e);
    for (std::size_t r = 0; r < stack.ranks.size(); ++r) {
        const RankTimeline& rank = *stack.ranks[r];
        const trace::Trace& t = rank.trace;
        std::optional<std::uint32_t> found;
        if (int(r) == slice.rank) {
            found = slice.event;
        } else if (place.collective) {
            found = collectiveAt(rank, place);
        } else if (const auto id = t.strings.find(name)) {
            const auto theirs = occurrences(rank, *id, place.step);
            if (place.occurrence < theirs.size()) {
                found = theirs[place.occurrence];
            }
        }
        if (found) {
            m.slices.push_back({int(r), *found});
            m.startsUs.push_back(stack.toDisplay(r, t.events[*found].startUs));
        } else {
            m.unmatchedRanks.push_back(int(r));
        }
    }
    if (m.slices.size() > 1) {
        const auto [lo, hi] = std::ranges::minmax_element(m.startsUs);
        m.skewUs = *hi - *lo;
        m.firstRank = m.slices[std::size_t(lo - m.startsUs.begin())].rank;
        m.lastRank = m.slices[std::size_t(hi - m.startsUs.begin())].rank;
    }
    return m;
}

} // namespace commprof::timeline
