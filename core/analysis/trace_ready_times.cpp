// SPDX-License-Identifier: GPL-3.0-or-later
#include "trace_ready_times.h"

#include "trace/statistics.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace commprof::analysis {
namespace {

using Iterations = std::vector<const trace::DdpIteration*>;

// Each gradient's bytes, in ready order: the --params file's (registration order reversed), or
// each bucket's collective shared evenly among the gradients it carried. nullopt with *why
// when neither gives them.
std::optional<std::vector<double>> gradientBytes(const trace::DdpIteration& first,
                                                 const DdpParams* params, QString* why) {
    const std::size_t gradients = first.gradientReadyUs.size();
    std::vector<double> bytes(gradients, 0.0);
    if (params) {
        if (params->params.size() != gradients) {
            *why = QString("the traces' backward readies %1 gradients, the --params file "
                           "lists %2 parameters that take one")
                       .arg(gradients)
                       .arg(params->params.size());
            return std::nullopt;
        }
        return params->bytesInReadyOrder();
    }
    for (const trace::BucketCollective& b : first.buckets) {
        if (!b.bytes) {
            *why = "the traces' collectives carry no sizes (a legacy export, commprof-rank's "
                   "older traces, or PyTorch 2.x's gloo profiled without record_shapes=True): "
                   "give the model's parameters with --params FILE";
            return std::nullopt;
        }
        for (int i = 0; i < b.gradients; ++i) {
            bytes[std::size_t(b.firstGradient + i)] = *b.bytes / b.gradients;
        }
    }
    return bytes;
}

// What one iteration ran after its last collective and its compute, before the optimizer.
double finalizeOf(const trace::DdpIteration& it) {
    double last = it.computeEndUs;
    for (const trace::BucketCollective& b : it.buckets) {
        last = std::max(last, b.endUs.value_or(b.launchUs));
    }
    return std::max(0.0, it.backwardEndUs - last);
}

// A step whose iterations cannot be aligned across the ranks: each iteration with the first's
// layout is a step of its own.
void addRankSteps(const Iterations& its, std::size_t gradients, TraceProfile& out) {
    for (const trace::DdpIteration* it : its) {
        if (!(it && it->gradientReadyUs.size() == gradients &&
              it->buckets.size() == out.layout.size())) {
            continue; // another layout of the backward (a first iteration, unused params)
        }
        StepProfile& p = out.steps.emplace_back();
        for (std::size_t i = 0; i < gradients; ++i) {
            p.params.push_back({0, it->gradientReadyUs[i] - it->backwardStartUs, {}});
        }
        p.forwardUs = it->forwardUs();
        p.computeEndUs = it->backwardComputeUs();
        p.optimizerUs = it->afterBackwardUs();
        p.exposedUs = it->afterComputeUs();
        p.finalizeUs = finalizeOf(*it);
    }
}

// Each rank's clock against the first's: the median difference of their buckets' ends.
std::vector<double> clockOffsets(const Iterations& its) {
    std::vector<double> offset;
    for (const trace::DdpIteration* it : its) {
        std::vector<double> d;
        for (std::size_t k = 0; k < it->buckets.size(); ++k) {
            d.push_back(*it->buckets[k].endUs - *its.front()->buckets[k].endUs);
        }
        offset.push_back(trace::median(d).value_or(0));
    }
    return offset;
}

using Spans = std::vector<std::pair<double, double>>;

// Each bucket's collective on the job's clock: from when every rank could run it (each had
// launched it and, where the trace times gloo's worker thread, started it there; else once the
// one before had ended) to the ranks' median end.
Spans collectiveSpans(const Iterations& its, const std::vector<double>& offset,
                      std::size_t buckets) {
    const bool started = std::ranges::all_of(its, [](const trace::DdpIteration* it) {
        return std::ranges::all_of(
            it->buckets, [](const trace::BucketCollective& b) { return b.startUs.has_value(); });
    });
    Spans spans;
    double previousEnd = 0;
    for (std::size_t k = 0; k < buckets; ++k) {
        double from = 0;
        std::vector<double> ends;
        for (std::size_t r = 0; r < its.size(); ++r) {
            const trace::BucketCollective& b = its[r]->buckets[k];
            from = std::max({from, b.launchUs - offset[r], b.startUs.value_or(0) - offset[r]});
            ends.push_back(*b.endUs - offset[r]);
        }
        const double end = trace::median(ends).value_or(0);
        spans.emplace_back(started ? from : std::max(from, previousEnd), end);
        previousEnd = std::max(previousEnd, end);
    }
    return spans;
}

// The spans running through all of [from, to).
std::vector<std::size_t> runningIn(const Spans& spans, double from, double to) {
    std::vector<std::size_t> out;
    for (std::size_t k = 0; k < spans.size(); ++k) {
        if (spans[k].first <= from && to <= spans[k].second) {
            out.push_back(k);
        }
    }
    return out;
}

// Each collective's share of the link, max-min fair: where several run at once (gloo's two
// worker threads), each takes an equal part of the time, none more than it still needs at the
// link's mean rate over the time it was busy, and what one does not need goes to the others;
// where all have had what they need, the time goes to them in proportion to their bytes. Two
// large all-reduces share the link evenly, while a small one beside a large one waits in the
// link's queue and takes little of it. `heard[k]`: the share was timed; false where it was the
// collective's need beside another that needed more (a need is no measurement).
std::vector<double> linkShares(const Spans& spans, const std::vector<double>& bytes,
                               std::vector<bool>& heard) {
    std::vector<double> edges;
    for (const auto& [from, to] : spans) {
        edges.insert(edges.end(), {from, to});
    }
    std::sort(edges.begin(), edges.end());
    double busy = 0, busyBytes = 0;
    for (std::size_t i = 1; i < edges.size(); ++i) {
        busy += runningIn(spans, edges[i - 1], edges[i]).empty() ? 0 : edges[i] - edges[i - 1];
    }
    for (std::size_t k = 0; k < spans.size(); ++k) {
        busyBytes += spans[k].second > spans[k].first ? bytes[k] : 0;
    }
    std::vector<double> share(spans.size(), 0.0);
    heard.assign(spans.size(), true);
    for (std::size_t i = 1; i < edges.size(); ++i) {
        const std::vector<std::size_t> running = runningIn(spans, edges[i - 1], edges[i]);
        double left = edges[i] - edges[i - 1];
        std::vector<std::size_t> open = running, cappedHere;
        while (left > 0 && !open.empty()) {
            const double part = left / double(open.size());
            std::vector<std::size_t> still;
            for (const std::size_t k : open) {
                const double needs = busyBytes > 0 ? bytes[k] * busy / busyBytes - share[k] : 0;
                if (running.size() > 1 && needs < part) {
                    share[k] += std::max(0.0, needs);
                    left -= std::max(0.0, needs);
                    cappedHere.push_back(k);
                } else {
                    still.push_back(k);
                }
            }
            if (still.size() == open.size()) {
                for (const std::size_t k : still) {
                    share[k] += part;
                }
                left = 0;
            }
            open = std::move(still);
        }
        if (left > 0) {
            // Every need met and the link still busy: slower than its mean rate here, for all of
            // them alike (in proportion to their bytes), and no one of them waited on another.
            const double runningBytes =
                std::accumulate(running.begin(), running.end(), 0.0,
                                [&](double sum, std::size_t k) { return sum + bytes[k]; });
            for (const std::size_t k : running) {
                share[k] += left * (runningBytes > 0 ? bytes[k] / runningBytes
                                                     : 1.0 / double(running.size()));
            }
        } else {
            for (const std::size_t k : cappedHere) {
                heard[k] = false;
            }
        }
    }
    return share;
}

// What each bucket's collective took of the link (linkShares): the shares add up to the time the
// link was busy, which the model, running the collectives one at a time, spends again
// (step_model.h).
void addCostSamples(const Iterations& its, const std::vector<double>& offset, TraceProfile& out) {
    const Spans spans = collectiveSpans(its, offset, out.layout.size());
    std::vector<bool> heard;
    const std::vector<double> share = linkShares(spans, out.bucketBytes, heard);
    for (std::size_t k = 0; k < spans.size(); ++k) {
        if (heard[k] && share[k] > 0 && out.bucketBytes[k] > 0) {
            out.costSamples.push_back({out.bucketBytes[k], share[k]});
        }
    }
}

// A step every rank ran with the first's layout and every bucket's end: one step, the job's
// view of it, on the first rank's clock; each gradient is ready when the last rank has it.
void addJobStep(const Iterations& its, std::size_t gradients, TraceProfile& out) {
    out.acrossRanks = true;
    const std::vector<double> offset = clockOffsets(its);
    std::vector<double> starts, backwardStarts, afterBackward, lastEnds, finalizes;
    for (std::size_t r = 0; r < its.size(); ++r) {
        finalizes.push_back(finalizeOf(*its[r]));
        starts.push_back(its[r]->window.start - offset[r]);
        backwardStarts.push_back(its[r]->backwardStartUs - offset[r]);
        afterBackward.push_back(its[r]->afterBackwardUs());
        lastEnds.push_back(its[r]->backwardEndUs - offset[r]);
    }
    const double backwardStart = trace::median(backwardStarts).value_or(0);
    StepProfile& p = out.steps.emplace_back();
    double end = backwardStart;
    for (std::size_t i = 0; i < gradients; ++i) {
        double latest = backwardStart;
        for (std::size_t r = 0; r < its.size(); ++r) {
            latest = std::max(latest, its[r]->gradientReadyUs[i] - offset[r]);
        }
        p.params.push_back({0, latest - backwardStart, {}});
        end = std::max(end, latest);
    }
    p.forwardUs = backwardStart - trace::median(starts).value_or(0);
    p.computeEndUs = end - backwardStart;
    p.optimizerUs = trace::median(afterBackward).value_or(0);
    p.finalizeUs = trace::median(finalizes).value_or(0);
    p.exposedUs = std::max(0.0, trace::median(lastEnds).value_or(end) - end);
    addCostSamples(its, offset, out);
}

// Whether a step's iterations can be read as the job ran them: one per rank, each with the
// first iteration's layout and every bucket's end.
bool aligned(const Iterations& its, std::size_t ranks, std::size_t gradients,
             const TraceProfile& out) {
    return its.size() == ranks && ranks > 1 &&
           std::ranges::all_of(its, [&](const trace::DdpIteration* it) {
               return it && it->gradientReadyUs.size() == gradients &&
                      it->buckets.size() == out.layout.size() &&
                      std::ranges::all_of(it->buckets, [](const trace::BucketCollective& b) {
                          return b.endUs.has_value();
                      });
           });
}

// Each step's gradients given their bytes and shapes, their ready times kept in order (a
// gradient read ready before the one before it is ready with it).
void finishSteps(const std::vector<double>& bytes, const DdpParams* params, const QString& source,
                 TraceProfile& out) {
    for (StepProfile& p : out.steps) {
        p.source = source;
        p.samples = 1;
        double previous = 0;
        for (std::size_t i = 0; i < p.params.size(); ++i) {
            previous = std::max(previous, p.params[i].readyUs);
            p.params[i] = {bytes[i], previous,
                           params ? params->params[bytes.size() - 1 - i].shape
                                  : std::vector<double>{}};
        }
        p.computeEndUs = std::max(p.computeEndUs, previous);
    }
}

} // namespace

std::optional<TraceProfile> profileFromTraces(const std::vector<const trace::DdpRankSteps*>& traces,
                                              const DdpParams* params, QString* why) {
    const auto withIteration =
        std::ranges::find_if(traces, [](const auto* t) { return !t->iterations.empty(); });
    if (withIteration == traces.end()) {
        *why = "no iteration with a backward in any trace";
        return std::nullopt;
    }
    const trace::DdpIteration* first = &(*withIteration)->iterations.front();
    const std::size_t gradients = first->gradientReadyUs.size();
    TraceProfile out;
    for (const trace::BucketCollective& b : first->buckets) {
        std::vector<int>& members = out.layout.emplace_back(std::size_t(b.gradients));
        std::iota(members.begin(), members.end(), b.firstGradient);
    }
    const std::optional<std::vector<double>> bytes = gradientBytes(*first, params, why);
    if (!bytes) {
        return std::nullopt;
    }
    out.bytesFromParams = params != nullptr;
    for (const std::vector<int>& members : out.layout) {
        out.bucketBytes.push_back(
            std::accumulate(members.begin(), members.end(), 0.0,
                            [&](double sum, int i) { return sum + (*bytes)[std::size_t(i)]; }));
    }

    // The steps every rank has, with every bucket's end: those the job's view is taken from.
    std::map<int, Iterations> bySteps;
    for (const trace::DdpRankSteps* t : traces) {
        for (const trace::DdpIteration& it : t->iterations) {
            out.stepsUs.push_back(it.stepUs());
            bySteps[it.step].push_back(&it);
        }
    }
    for (const auto& [step, its] : bySteps) {
        if (aligned(its, traces.size(), gradients, out)) {
            addJobStep(its, gradients, out);
        } else {
            addRankSteps(its, gradients, out);
        }
    }
    finishSteps(*bytes, params, QString::fromStdString(traces.front()->source), out);
    return out;
}

} // namespace commprof::analysis
