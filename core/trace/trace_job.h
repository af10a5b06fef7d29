// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// All ranks' traces of one job at once: per collective instance, matched across ranks, the
// arrival skew and the rank that arrived last; per rank, how often it was last and by how
// much; per step, the slowest rank. What HTA's straggler analysis and the TensorBoard
// plugin's distributed view give, from the traces alone.

#include "intervals.h"
#include "rank_reduction.h"
#include "step_metrics.h"
#include "trace_event.h"
#include "trace_input.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace commprof::trace {

// A rank is a straggler when it arrived last at two thirds or more of the collectives matched
// across ranks, and its median lateness (its start minus the median start of all ranks, per
// collective) exceeds this fraction of the median step: it then costs every other rank more
// than a quarter of each step in waiting, step after step. Below either bar, arrival order is
// what scheduling noise gives on a shared or oversubscribed machine: four ranks on two cores
// here showed one rank last at 10 of 16 collectives, late by 18% of a step, with no delay
// planted (docs/trace-semantics.md, "Many ranks at once").
inline constexpr double kStragglerStepFraction = 0.25;
inline constexpr double kStragglerLastShare = 2.0 / 3.0;
// With no marked steps, lateness is judged against this instead.
inline constexpr double kStragglerFloorUs = 1000.0;

// The *.json and *.json.gz files of a directory (not recursive), in natural order of the
// numbers in their names. Throws TraceError when there are none, naming the directory.
std::vector<std::string> traceFilesIn(const std::string& directory);

// How reading one file of a job ended.
struct ReadOutcome {
    std::string error;      // why it could not be read, naming the file
    bool notATrace = false; // valid JSON without traceEvents
    bool cancelled = false; // options.cancelled stopped it (or it never started): no error
};

// Reads every file, `parallel` at a time (0: the hardware's threads), and hands each trace
// read to `use` on the thread that read it; the trace is gone once `use` returns. Each trace
// is parsed on one thread when several are read at once. A file that fails (or whose `use`
// throws) never stops the others; once options.cancelled says so, the files being read stop
// and the rest are not started, all marked cancelled. Outcomes come back in the order given.
std::vector<ReadOutcome> forEachTrace(const std::vector<std::string>& files, ReadOptions options,
                                      std::size_t parallel,
                                      const std::function<void(std::size_t, Trace&&)>& use);

struct LoadedTrace : ReadOutcome {
    std::optional<Trace> trace;
};

// forEachTrace, keeping every trace whole (the timeline, which shows their events).
std::vector<LoadedTrace> readTraces(const std::vector<std::string>& files, ReadOptions options,
                                    std::size_t parallel = 0);

struct LoadedReduction : ReadOutcome {
    std::optional<RankReduction> reduction;
};

// forEachTrace, keeping only each trace's reduction under `window` (with HTA's figures when
// asked): what `trace summarize DIR` reads, in memory that does not grow with the ranks' events.
std::vector<LoadedReduction> readReductions(const std::vector<std::string>& files,
                                            const ReadOptions& options, std::optional<Span> window,
                                            bool withHta, std::size_t parallel = 0);

// distributedInfo.rank, else otherData.rank (commprof-rank), else a number after "rank" in
// the file name, else nullopt.
std::optional<int> rankOf(const Trace& trace);

struct Arrival {
    int rank = 0;
    double startUs = 0;
};

// One collective as all ranks ran it: matched by process group and sequence number where the
// trace has them ("Seq"), else by process group, step and order within the step.
struct CollectiveInstance {
    std::string processGroup;
    std::optional<int> step;
    std::size_t ordinal = 0;
    std::optional<std::int64_t> seq;
    std::string kind;
    std::vector<Arrival> arrivals; // by rank
    int firstRank = 0;
    int lastRank = 0;
    double skewUs = 0; // latest start minus earliest
};

struct RankLateness {
    int rank = 0;
    std::size_t lastArrivals = 0; // instances at which it arrived last
    std::size_t instances = 0;    // instances it took part in
    double medianLatenessUs = 0;  // its start minus the median start, per instance
    bool straggler = false;
};

struct StepVerdict {
    int step = 0;
    std::optional<int> slowestRank;
    std::map<int, double> stepUs; // per rank
    std::size_t instances = 0;
    double waitUs = 0; // sum of the skews of the step's collectives
};

struct JobAnalysis {
    std::vector<CollectiveInstance> instances; // matched on at least two ranks
    std::vector<RankLateness> ranks;
    double medianStepUs = 0;
    double thresholdUs = 0;
    std::vector<StepVerdict> steps;
    std::vector<std::string> warnings;
};

// reductions[i] is rank ranks[i] (all reduced under the same window).
JobAnalysis analyzeJob(const std::vector<const RankReduction*>& reductions,
                       const std::vector<int>& ranks);
// The same from whole traces: traces[i] is rank ranks[i]; summaries[i] its summary (under the
// same window).
JobAnalysis analyzeJob(const std::vector<const Trace*>& traces, const std::vector<int>& ranks,
                       const std::vector<TraceSummary>& summaries,
                       std::optional<Span> window = std::nullopt);

} // namespace commprof::trace
