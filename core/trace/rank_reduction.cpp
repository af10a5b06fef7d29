// SPDX-License-Identifier: GPL-3.0-or-later
#include "rank_reduction.h"

#include "collective_places.h"
#include "trace_job.h"
#include "trace_report.h"

#include <algorithm>

namespace commprof::trace {
namespace {

std::uint32_t nameIndex(std::vector<std::string>& names, const std::string& name) {
    const auto it = std::find(names.begin(), names.end(), name);
    if (it != names.end()) {
        return std::uint32_t(it - names.begin());
    }
    names.push_back(name);
    return std::uint32_t(names.size() - 1);
}

} // namespace

std::vector<CollectiveArrival> collectiveArrivals(const std::vector<CollectiveRecord>& records,
                                                  const std::vector<StepWindow>& steps,
                                                  const std::optional<Span>& window,
                                                  std::vector<std::string>& names) {
    std::vector<CollectiveArrival> out;
    for (const CollectivePlace& p : collectivePlaces(records, steps, window)) {
        const CollectiveRecord& c = records[p.record];
        // A braced list is evaluated in order: the group's name is added before the kind's.
        out.push_back({nameIndex(names, p.processGroup), nameIndex(names, c.kind), p.seq, p.step,
                       p.ordinal, c.startUs});
    }
    return out;
}

RankReduction reduceTrace(const Trace& trace, std::optional<Span> window, bool withHta) {
    RankReduction r;
    r.source = trace.source;
    r.rank = rankOf(trace);
    r.distributed = trace.distributed;
    TraceReport report = reportOf(trace, window, withHta);
    r.summary = std::move(report.summary);
    r.hta = std::move(report.hta);
    std::vector<CollectiveRecord> inWindow;
    std::ranges::copy_if(trace.collectives, std::back_inserter(inWindow),
                         [&](const CollectiveRecord& c) { return startsIn(c, window); });
    r.collectives = inWindow.size();
    r.byKind = summarizeByKind(inWindow);
    r.arrivals = collectiveArrivals(trace.collectives, stepWindows(trace), window, r.names);
    return r;
}

} // namespace commprof::trace
