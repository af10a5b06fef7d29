// SPDX-License-Identifier: GPL-3.0-or-later
#include "trace_job.h"

#include "parallel_for.h"
#include "spec/mapped.h"
#include "statistics.h"
#include "trace_reader.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <regex>
#include <thread>

namespace commprof::trace {
namespace {

namespace fs = std::filesystem;

// "trace_rank10" after "trace_rank2".
bool naturalLess(const std::string& a, const std::string& b) {
    const auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
    const auto digitsEnd = [&](const std::string& s, std::size_t from) {
        return std::size_t(std::find_if_not(s.begin() + long(from), s.end(), digit) - s.begin());
    };
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (digit(a[i]) && digit(b[j])) {
            const std::size_t ei = digitsEnd(a, i), ej = digitsEnd(b, j);
            const std::string na = a.substr(i, ei - i), nb = b.substr(j, ej - j);
            if (na.size() != nb.size()) {
                return na.size() < nb.size();
            }
            if (na != nb) {
                return na < nb;
            }
            i = ei;
            j = ej;
        } else if (a[i] != b[j]) {
            return a[i] < b[j];
        } else {
            ++i;
            ++j;
        }
    }
    return a.size() - i < b.size() - j;
}

struct InstanceKey {
    std::string processGroup;
    std::optional<std::int64_t> seq;
    std::optional<int> step;
    std::size_t ordinal = 0;
    auto tie() const { return std::tie(processGroup, seq, step, ordinal); }
    bool operator<(const InstanceKey& o) const { return tie() < o.tie(); }
};

// One rank as the analysis reads it, from its reduction or from a whole trace.
struct RankInput {
    const std::vector<CollectiveArrival>* arrivals;
    const std::vector<std::string>* names;
    const TraceSummary* summary;
};

// Each rank's collectives, keyed so the same collective has the same key on every rank: by
// process group and sequence number, or without one by step and ordinal within it.
std::map<InstanceKey, CollectiveInstance> matchInstances(const std::vector<RankInput>& rankInputs,
                                                         const std::vector<int>& ranks) {
    std::map<InstanceKey, CollectiveInstance> byKey;
    for (std::size_t r = 0; r < rankInputs.size(); ++r) {
        const std::vector<std::string>& names = *rankInputs[r].names;
        for (const CollectiveArrival& c : *rankInputs[r].arrivals) {
            const InstanceKey key = c.seq
                                        ? InstanceKey{names[c.processGroup], c.seq, {}, 0}
                                        : InstanceKey{names[c.processGroup], {}, c.step, c.ordinal};
            CollectiveInstance& inst = byKey[key];
            inst.processGroup = key.processGroup;
            inst.seq = key.seq;
            inst.step = c.step;
            inst.ordinal = key.ordinal;
            inst.kind = names[c.kind];
            if (std::ranges::find(inst.arrivals, ranks[r], &Arrival::rank) == inst.arrivals.end()) {
                inst.arrivals.push_back({ranks[r], c.startUs});
            }
        }
    }
    return byKey;
}

// Each collective two or more ranks reached: its skew, first and last rank; and per rank how
// late it arrived against the median arrival. Then who is a straggler: last at most of its
// collectives, by more than the threshold the median step sets.
void measureSkew(std::map<InstanceKey, CollectiveInstance>& byKey,
                 const std::vector<RankInput>& rankInputs, const std::vector<int>& ranks,
                 JobAnalysis& job) {
    std::map<int, RankLateness> lateness;
    std::map<int, std::vector<double>> latenessSamples;
    for (int rank : ranks) {
        lateness[rank].rank = rank;
    }
    for (auto& [key, inst] : byKey) {
        if (inst.arrivals.size() < 2) {
            continue;
        }
        std::ranges::sort(inst.arrivals, {}, &Arrival::rank);
        const auto [first, last] =
            std::ranges::minmax_element(inst.arrivals, {}, &Arrival::startUs);
        inst.firstRank = first->rank;
        inst.lastRank = last->rank;
        inst.skewUs = last->startUs - first->startUs;
        const auto starts = spec::mapped<std::vector<double>>(
            inst.arrivals, [](const Arrival& a) { return a.startUs; });
        const double mid = median(starts).value_or(0);
        for (const Arrival& a : inst.arrivals) {
            ++lateness[a.rank].instances;
            latenessSamples[a.rank].push_back(a.startUs - mid);
        }
        if (inst.skewUs > 0) {
            ++lateness[inst.lastRank].lastArrivals;
        }
        job.instances.push_back(inst);
    }

    std::vector<double> stepTimes;
    for (const RankInput& in : rankInputs) {
        if (in.summary->stepsMarked) {
            for (const auto& m : in.summary->steps) {
                stepTimes.push_back(m.stepUs);
            }
        }
    }
    job.medianStepUs = median(stepTimes).value_or(0);
    job.thresholdUs = stepTimes.empty()
                          ? kStragglerFloorUs
                          : std::max(kStragglerFloorUs, kStragglerStepFraction * job.medianStepUs);
    for (auto& [rank, l] : lateness) {
        l.medianLatenessUs = median(latenessSamples[rank]).value_or(0);
        l.straggler = l.instances > 0 &&
                      double(l.lastArrivals) >= kStragglerLastShare * double(l.instances) &&
                      l.medianLatenessUs > job.thresholdUs;
        job.ranks.push_back(l);
    }
}

// Per step: the rank that arrived last at most of its collectives, else the longest step.
void judgeSteps(const std::vector<RankInput>& rankInputs, const std::vector<int>& ranks,
                JobAnalysis& job) {
    std::map<int, StepVerdict> steps;
    for (std::size_t r = 0; r < rankInputs.size(); ++r) {
        if (!rankInputs[r].summary->stepsMarked) {
            continue;
        }
        for (const auto& m : rankInputs[r].summary->steps) {
            steps[m.step].step = m.step;
            steps[m.step].stepUs[ranks[r]] = m.stepUs;
        }
    }
    // Per step and rank, how long the others waited for it: the skew of each collective it
    // arrived last at. Counting arrivals instead let the later, already synchronised buckets
    // of a step (where who is last is noise) outvote the one a late rank held up.
    std::map<int, std::map<int, double>> lastInStep;
    for (const auto& inst : job.instances) {
        if (inst.step && steps.count(*inst.step)) {
            StepVerdict& v = steps[*inst.step];
            ++v.instances;
            v.waitUs += inst.skewUs;
            lastInStep[*inst.step][inst.lastRank] += inst.skewUs;
        }
    }
    const auto bySecond = [](const auto& a, const auto& b) { return a.second < b.second; };
    for (auto& [n, v] : steps) {
        if (const auto it = lastInStep.find(n); it != lastInStep.end()) {
            v.slowestRank = std::max_element(it->second.begin(), it->second.end(), bySecond)->first;
        } else if (!v.stepUs.empty()) {
            v.slowestRank = std::max_element(v.stepUs.begin(), v.stepUs.end(), bySecond)->first;
        }
        job.steps.push_back(v);
    }
}

JobAnalysis analyze(const std::vector<RankInput>& rankInputs, const std::vector<int>& ranks) {
    JobAnalysis job;
    std::map<InstanceKey, CollectiveInstance> byKey = matchInstances(rankInputs, ranks);
    measureSkew(byKey, rankInputs, ranks, job);
    judgeSteps(rankInputs, ranks, job);
    if (job.instances.empty() && rankInputs.size() > 1) {
        job.warnings.push_back("no collective could be matched across ranks: no skew to report");
    }
    return job;
}

} // namespace

std::vector<std::string> traceFilesIn(const std::string& directory) {
    std::error_code ec;
    std::vector<std::string> names;
    for (fs::directory_iterator it(directory, ec), end; !ec && it != end; it.increment(ec)) {
        std::string name = it->path().filename().string();
        std::string lower = name;
        std::transform(lower.begin(), lower.end(), lower.begin(),
                       [](unsigned char c) { return char(std::tolower(c)); });
        if (lower.ends_with(".json") || lower.ends_with(".json.gz")) {
            names.push_back(std::move(name));
        }
    }
    if (ec) {
        throw TraceError(directory + ": cannot list the directory: " + ec.message());
    }
    if (names.empty()) {
        throw TraceError(directory +
                         ": no traces in this directory (looked for *.json and *.json.gz files)");
    }
    std::sort(names.begin(), names.end(), naturalLess);
    return spec::mapped<std::vector<std::string>>(
        names, [&](const auto& n) { return (fs::path(directory) / n).string(); });
}

std::vector<ReadOutcome> forEachTrace(const std::vector<std::string>& files, ReadOptions options,
                                      std::size_t parallel,
                                      const std::function<void(std::size_t, Trace&&)>& use) {
    std::vector<ReadOutcome> out(files.size());
    if (parallel == 0) {
        parallel = std::max(1u, std::thread::hardware_concurrency());
    }
    parallel = std::min(parallel, files.size());
    if (files.size() > 1) {
        options.threads = 1; // the files themselves keep every core busy
    }
    parallelFor(files.size(), int(parallel), [&](std::size_t i, std::size_t) {
        try {
            use(i, readTraceFile(files[i], options));
        } catch (const ReadCancelled&) {
            out[i].cancelled = true;
        } catch (const NotATraceError& e) {
            out[i].error = e.what();
            out[i].notATrace = true;
        } catch (const TraceError& e) {
            out[i].error = e.what();
        } catch (const std::bad_alloc&) {
            out[i].error = files[i] + ": out of memory while reading it";
        } catch (const std::exception& e) {
            out[i].error = files[i] + ": " + e.what();
        }
    });
    return out;
}

std::vector<LoadedTrace> readTraces(const std::vector<std::string>& files, ReadOptions options,
                                    std::size_t parallel) {
    std::vector<LoadedTrace> out(files.size());
    const std::vector<ReadOutcome> outcomes =
        forEachTrace(files, std::move(options), parallel,
                     [&](std::size_t i, Trace&& trace) { out[i].trace = std::move(trace); });
    for (std::size_t i = 0; i < out.size(); ++i) {
        static_cast<ReadOutcome&>(out[i]) = outcomes[i];
    }
    return out;
}

std::vector<LoadedReduction> readReductions(const std::vector<std::string>& files,
                                            const ReadOptions& options, std::optional<Span> window,
                                            bool withHta, std::size_t parallel) {
    std::vector<LoadedReduction> out(files.size());
    const std::vector<ReadOutcome> outcomes =
        forEachTrace(files, options, parallel, [&](std::size_t i, Trace&& trace) {
            out[i].reduction = reduceTrace(trace, window, withHta);
        });
    for (std::size_t i = 0; i < out.size(); ++i) {
        static_cast<ReadOutcome&>(out[i]) = outcomes[i];
    }
    return out;
}

std::optional<int> rankOf(const Trace& trace) {
    if (trace.distributed.rank) {
        return int(*trace.distributed.rank);
    }
    if (trace.producerRank) {
        return int(*trace.producerRank);
    }
    static const std::regex rankInName(R"(rank[-_]?(\d+))", std::regex::icase);
    const std::string name = fs::path(trace.source).filename().string();
    std::smatch m;
    if (std::regex_search(name, m, rankInName)) {
        return std::stoi(m[1].str());
    }
    return std::nullopt;
}

JobAnalysis analyzeJob(const std::vector<const RankReduction*>& reductions,
                       const std::vector<int>& ranks) {
    const auto in = spec::mapped<std::vector<RankInput>>(reductions, [](const RankReduction* r) {
        return RankInput{&r->arrivals, &r->names, &r->summary};
    });
    return analyze(in, ranks);
}

JobAnalysis analyzeJob(const std::vector<const Trace*>& traces, const std::vector<int>& ranks,
                       const std::vector<TraceSummary>& summaries, std::optional<Span> window) {
    std::vector<std::vector<CollectiveArrival>> arrivals(traces.size());
    std::vector<std::vector<std::string>> names(traces.size());
    std::vector<RankInput> in;
    in.reserve(traces.size());
    for (std::size_t r = 0; r < traces.size(); ++r) {
        arrivals[r] =
            collectiveArrivals(traces[r]->collectives, stepWindows(*traces[r]), window, names[r]);
        in.push_back({&arrivals[r], &names[r], &summaries[r]});
    }
    return analyze(in, ranks);
}

} // namespace commprof::trace
