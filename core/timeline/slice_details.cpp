// SPDX-License-Identifier: GPL-3.0-or-later
#include "slice_details.h"

namespace commprof::timeline {

SliceDetails describeSlice(const TimelineStack& stack, SliceRef slice) {
    SliceDetails d;
    d.slice = slice;
    if (!slice.valid() || std::size_t(slice.rank) >= stack.ranks.size()) {
        return d;
    }
    const std::size_t r = std::size_t(slice.rank);
    const RankTimeline& rank = *stack.ranks[r];
    if (slice.event >= rank.trace.events.size()) {
        return d;
    }
    const trace::Trace& t = rank.trace;
    const trace::TraceEvent& e = t.events[slice.event];
    d.rankNumber = rank.rank;
    d.name = QString::fromStdString(t.name(e));
    d.category = QString::fromStdString(t.category(e));
    d.cls = trace::toString(e.cls);
    d.lane = QString::fromStdString(t.laneName(e.pid, e.tid));
    d.startUs = stack.toDisplay(r, e.startUs);
    d.durationUs = e.durationUs();
    d.selfUs = rank.selfTimeUs(slice.event);
    d.correlation = e.correlation;
    d.stream = e.stream;
    for (const auto& p : rank.flows.partners(t, slice.event)) {
        const trace::TraceEvent& pe = t.events[p.event];
        PartnerInfo info;
        info.slice = {slice.rank, p.event};
        info.name = QString::fromStdString(t.name(pe));
        info.lane = QString::fromStdString(t.laneName(pe.pid, pe.tid));
        info.isDevice = p.isDevice;
        QStringList via;
        if (p.viaFlow) {
            via << "ac2g flow";
        }
        if (p.viaCorrelation) {
            via << QString("correlation %1").arg(e.correlation);
        }
        info.via = via.join(" and ");
        info.startUs = stack.toDisplay(r, pe.startUs);
        d.partners.push_back(std::move(info));
    }
    return d;
}

std::vector<RankRange> measureRange(const TimelineStack& stack, double fromUs, double toUs) {
    std::vector<RankRange> out;
    for (std::size_t r = 0; r < stack.ranks.size(); ++r) {
        const trace::Span window{stack.toTrace(r, fromUs), stack.toTrace(r, toUs)};
        out.push_back({stack.ranks[r]->rank, window,
                       trace::measureWindow(stack.ranks[r]->classes, {-1, window})});
    }
    return out;
}

} // namespace commprof::timeline
