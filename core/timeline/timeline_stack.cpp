// SPDX-License-Identifier: GPL-3.0-or-later
#include "timeline_stack.h"

#include "spec/mapped.h"

#include <algorithm>
#include <limits>

namespace commprof::timeline {

ClockAlignment alignClocks(const std::vector<const RankTimeline*>& ranks) {
    ClockAlignment a;
    a.shiftUs.assign(ranks.size(), 0.0);
    if (ranks.size() < 2) {
        return a;
    }
    const auto startOf = [](const RankTimeline* r) { return r->startUs; };
    const auto endOf = [](const RankTimeline* r) { return r->endUs; };
    if (startOf(std::ranges::max(ranks, {}, startOf)) < endOf(std::ranges::min(ranks, {}, endOf))) {
        a.mode = ClockMode::Shared;
        return a;
    }
    a.mode = ClockMode::AlignedOnCollective;
    // Each rank's anchor: the end of its first collective, else its first event.
    auto anchor = [&](const RankTimeline& r) {
        if (!r.trace.collectives.empty()) {
            const auto& c = r.trace.collectives.front();
            return c.startUs + c.durationUs;
        }
        return r.startUs;
    };
    const auto* ref = ranks.front();
    const bool refHasCollective = !ref->trace.collectives.empty();
    for (std::size_t i = 0; i < ranks.size(); ++i) {
        const bool has = !ranks[i]->trace.collectives.empty();
        if (!has) {
            a.withoutCollective.push_back(ranks[i]->rank);
        }
        // Like with like: two collective ends, or two first events.
        const double mine = has && refHasCollective ? anchor(*ranks[i]) : ranks[i]->startUs;
        const double theirs = has && refHasCollective ? anchor(*ref) : ref->startUs;
        a.shiftUs[i] = theirs - mine;
    }
    const QString kind = refHasCollective
                             ? QString::fromStdString(ref->trace.collectives.front().kind)
                             : QString("collective");
    a.note = QString("clocks differ (the traces do not overlap in time): ranks aligned on the "
                     "end of their first %1")
                 .arg(kind);
    if (!a.withoutCollective.empty()) {
        const auto names = spec::mapped<QStringList>(a.withoutCollective,
                                                     [](int r) { return QString::number(r); });
        a.note +=
            QString("; rank %1 has none and is aligned on its first event").arg(names.join(", "));
    }
    return a;
}

TimelineStack stackRanks(std::vector<std::shared_ptr<const RankTimeline>> ranks) {
    TimelineStack s;
    std::ranges::stable_sort(ranks, {}, &RankTimeline::rank);
    s.ranks = std::move(ranks);
    s.clocks = alignClocks(spec::mapped<std::vector<const RankTimeline*>>(
        s.ranks, [](const auto& r) { return r.get(); }));
    double start = std::numeric_limits<double>::max();
    double end = std::numeric_limits<double>::lowest();
    for (std::size_t i = 0; i < s.ranks.size(); ++i) {
        start = std::min(start, s.ranks[i]->startUs + s.clocks.shiftUs[i]);
        end = std::max(end, s.ranks[i]->endUs + s.clocks.shiftUs[i]);
    }
    if (s.ranks.empty()) {
        start = 0;
        end = 1;
    }
    for (std::size_t i = 0; i < s.ranks.size(); ++i) {
        s.offsetsUs.push_back(s.clocks.shiftUs[i] - start);
    }
    s.endUs = std::max(end - start, 1e-3);
    return s;
}

} // namespace commprof::timeline
