// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What a job's analysis keeps of one rank's trace once it has been read: the rank's figures,
// its collectives by kind, and each collective as the matching across ranks needs it; never
// its events, nor even its full collective records. A job of any number of ranks then holds
// one whole trace per reading thread at a time (trace_job.h: readReductions), and the
// cross-rank analysis runs on the reductions alone.

#include "collectives.h"
#include "hta_figures.h"
#include "step_metrics.h"
#include "trace_event.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace commprof::trace {

// One collective of a rank, as trace_job.h matches it with the other ranks' (names: indices
// into RankReduction::names).
struct CollectiveArrival {
    std::uint32_t processGroup = 0; // "default" where the trace names none
    std::uint32_t kind = 0;
    std::optional<std::int64_t> seq;
    std::optional<int> step;   // the step window its start lies in
    std::uint32_t ordinal = 0; // without seq: its place among its group's collectives in the step
    double startUs = 0;
};

// The collectives that start in `window`, in start order, with their steps and places; their
// process groups and kinds are added to `names` once each.
std::vector<CollectiveArrival> collectiveArrivals(const std::vector<CollectiveRecord>& records,
                                                  const std::vector<StepWindow>& steps,
                                                  const std::optional<Span>& window,
                                                  std::vector<std::string>& names);

struct RankReduction {
    std::string source;
    std::optional<int> rank; // rankOf(trace): as the trace, else its file name, says
    DistributedInfo distributed;
    TraceSummary summary;            // under the window it was reduced with
    std::optional<HtaFigures> hta;   // when asked for, under the same window
    std::size_t collectives = 0;     // the collectives that start in the window
    std::vector<KindSummary> byKind; // summarizeByKind of them
    std::vector<std::string> names;  // process groups and kinds, each once
    std::vector<CollectiveArrival> arrivals;
};

RankReduction reduceTrace(const Trace& trace, std::optional<Span> window, bool withHta);

} // namespace commprof::trace
