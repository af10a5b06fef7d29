// SPDX-License-Identifier: GPL-3.0-or-later
#include "trace_ready_times.h"

#include "trace/statistics.h"

#include <algorithm>
#include <map>

namespace commprof::analysis {

std::optional<TraceProfile> profileFromTraces(const std::vector<const trace::DdpRankSteps*>& traces,
                                              const DdpParams* params, QString* why) {
    const auto fail = [&](const QString& reason) -> std::optional<TraceProfile> {
        *why = reason;
        return std::nullopt;
    };
    const trace::DdpIteration* first = nullptr;
    for (const trace::DdpRankSteps* t : traces) {
        if (!t->iterations.empty()) {
            first = &t->iterations.front();
            break;
        }
    }
    if (!first) {
        return fail("no iteration with a backward in any trace");
    }
    const std::size_t gradients = first->gradientReadyUs.size();
    TraceProfile out;
    for (const trace::BucketCollective& b : first->buckets) {
        std::vector<int>& members = out.layout.emplace_back();
        for (int i = 0; i < b.gradients; ++i) {
            members.push_back(b.firstGradient + i);
        }
    }
    std::vector<double> bytes(gradients, 0.0);
    if (params) {
        if (params->params.size() != gradients) {
            return fail(QString("the traces' backward readies %1 gradients, the --params file "
                                "lists %2 parameters that take one")
                            .arg(gradients)
                            .arg(params->params.size()));
        }
        bytes = params->bytesInReadyOrder();
        out.bytesFromParams = true;
    } else {
        for (const trace::BucketCollective& b : first->buckets) {
            if (!b.bytes) {
                return fail("the traces' collectives carry no sizes (a legacy export, "
                            "commprof-rank's older traces, or PyTorch 2.x's gloo profiled without "
                            "record_shapes=True): give the model's parameters with --params FILE");
            }
            for (int i = 0; i < b.gradients; ++i) {
                bytes[std::size_t(b.firstGradient + i)] = *b.bytes / b.gradients;
            }
        }
    }
    for (const std::vector<int>& members : out.layout) {
        double sum = 0;
        for (const int i : members) {
            sum += bytes[std::size_t(i)];
        }
        out.bucketBytes.push_back(sum);
    }

    std::vector<std::vector<double>> ready(gradients);
    std::vector<double> forward, computeEnd, optimizer, exposed, finalize;
    // What one iteration ran after its last collective and its compute, before the optimizer.
    const auto finalizeOf = [](const trace::DdpIteration& it) {
        double last = it.computeEndUs;
        for (const trace::BucketCollective& b : it.buckets) {
            last = std::max(last, b.endUs.value_or(b.launchUs));
        }
        return std::max(0.0, it.backwardEndUs - last);
    };
    int samples = 0;
    const auto usable = [&](const trace::DdpIteration* it) {
        return it && it->gradientReadyUs.size() == gradients &&
               it->buckets.size() == out.layout.size();
    };
    // The steps every rank has, with every bucket's end: those the job's view is taken from.
    std::map<int, std::vector<const trace::DdpIteration*>> bySteps;
    for (const trace::DdpRankSteps* t : traces) {
        for (const trace::DdpIteration& it : t->iterations) {
            out.stepsUs.push_back(it.stepUs());
            bySteps[it.step].push_back(&it);
        }
    }
    for (const auto& [step, its] : bySteps) {
        bool aligned = its.size() == traces.size() && traces.size() > 1;
        for (const trace::DdpIteration* it : its) {
            aligned = aligned && usable(it);
            for (const trace::BucketCollective& b :
                 it ? it->buckets : std::vector<trace::BucketCollective>{}) {
                aligned = aligned && b.endUs.has_value();
            }
        }
        if (!aligned) {
            for (const trace::DdpIteration* it : its) {
                if (!usable(it)) {
                    continue; // another layout of the backward (a first iteration, unused params)
                }
                for (std::size_t i = 0; i < gradients; ++i) {
                    ready[i].push_back(it->gradientReadyUs[i] - it->backwardStartUs);
                }
                forward.push_back(it->forwardUs());
                computeEnd.push_back(it->backwardComputeUs());
                optimizer.push_back(it->afterBackwardUs());
                exposed.push_back(it->afterComputeUs());
                finalize.push_back(finalizeOf(*it));
                ++samples;
            }
            continue;
        }
        out.acrossRanks = true;
        // Each rank's clock against the first's: the median difference of their buckets' ends.
        std::vector<double> offset;
        for (const trace::DdpIteration* it : its) {
            std::vector<double> d;
            for (std::size_t k = 0; k < it->buckets.size(); ++k) {
                d.push_back(*it->buckets[k].endUs - *its.front()->buckets[k].endUs);
            }
            offset.push_back(trace::median(d).value_or(0));
        }
        std::vector<double> starts, backwardStarts, afterBackward, lastEnds, finalizes;
        for (std::size_t r = 0; r < its.size(); ++r) {
            finalizes.push_back(finalizeOf(*its[r]));
            starts.push_back(its[r]->window.start - offset[r]);
            backwardStarts.push_back(its[r]->backwardStartUs - offset[r]);
            afterBackward.push_back(its[r]->afterBackwardUs());
            lastEnds.push_back(its[r]->backwardEndUs - offset[r]);
        }
        const double start = trace::median(starts).value_or(0);
        const double backwardStart = start + (trace::median(backwardStarts).value_or(0) - start);
        double end = 0;
        for (std::size_t i = 0; i < gradients; ++i) {
            double latest = backwardStart;
            for (std::size_t r = 0; r < its.size(); ++r) {
                latest = std::max(latest, its[r]->gradientReadyUs[i] - offset[r]);
            }
            ready[i].push_back(latest - backwardStart);
            end = std::max(end, latest);
        }
        forward.push_back(backwardStart - start);
        computeEnd.push_back(end - backwardStart);
        optimizer.push_back(trace::median(afterBackward).value_or(0));
        finalize.push_back(trace::median(finalizes).value_or(0));
        exposed.push_back(std::max(0.0, trace::median(lastEnds).value_or(end) - end));
        ++samples;
        // What each bucket's collective took once it could run, one at a time as the model runs
        // them.
        double previousEnd = 0;
        for (std::size_t k = 0; k < out.layout.size(); ++k) {
            double launched = 0;
            std::vector<double> ends;
            for (std::size_t r = 0; r < its.size(); ++r) {
                launched = std::max(launched, its[r]->buckets[k].launchUs - offset[r]);
                ends.push_back(*its[r]->buckets[k].endUs - offset[r]);
            }
            const double e = trace::median(ends).value_or(0);
            const double from = std::max(launched, previousEnd);
            if (e > from && out.bucketBytes[k] > 0) {
                out.costSamples.push_back({out.bucketBytes[k], e - from});
            }
            previousEnd = std::max(previousEnd, e);
        }
    }
    StepProfile& p = out.profile;
    p.source = QString::fromStdString(traces.front()->source);
    p.samples = samples;
    p.forwardUs = trace::median(forward).value_or(0);
    p.computeEndUs = trace::median(computeEnd).value_or(0);
    p.optimizerUs = trace::median(optimizer).value_or(0);
    p.exposedUs = trace::median(exposed).value_or(0);
    p.finalizeUs = trace::median(finalize).value_or(0);
    double previous = 0;
    for (std::size_t i = 0; i < gradients; ++i) {
        // Medians of each gradient, kept in order: a median ready time never precedes the last.
        previous = std::max(previous, trace::median(ready[i]).value_or(0));
        ReadyParam q;
        q.bytes = bytes[i];
        q.readyUs = previous;
        if (params) {
            q.shape = params->params[gradients - 1 - i].shape;
        }
        p.params.push_back(std::move(q));
    }
    p.computeEndUs = std::max(p.computeEndUs, previous);
    return out;
}

} // namespace commprof::analysis
