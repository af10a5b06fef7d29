// SPDX-License-Identifier: GPL-3.0-or-later
#include "ddp_steps.h"

#include "collectives.h"
#include "spec/sane_values.h"
#include "step_metrics.h"
#include "trace_damage.h"
#include "trace_error.h"
#include "trace_job.h"

#include <algorithm>
#include <array>
#include <map>
#include <string_view>
#include <unordered_map>

namespace commprof::trace {
namespace {

// Which of DDP's launch spans a launch was read from (roleOf lists them).
enum class LaunchKind : std::uint8_t {
    None,
    BucketSpan, // commprof-rank's comm_hook span: launch to completion
    C10d,       // c10d::allreduce_ (Python DDP through ProcessGroup)
    ParamComms, // record_param_comms of an all-reduce (PyTorch 2.x)
    Host,       // nccl:all_reduce on the host
};

struct Launch {
    LaunchKind kind = LaunchKind::None;
    double startUs = 0, endUs = 0;
    // A c10d::allreduce_ recorded with record_shapes: its bucket's elements ("Input Dims").
    std::optional<std::int64_t> elements;
};

// The spans one rank's trace holds of a DDP backward, picked out by name and sorted once, so
// each iteration is read from short lists rather than the whole trace (the span names and why
// each matters are in ddp_steps.h).
struct BackwardSpans {
    std::vector<const TraceEvent*> evaluate;   // evaluate_function spans, by start
    std::vector<const TraceEvent*> accumulate; // AccumulateGrad spans, by end (ready order)
    std::vector<const TraceEvent*> copyBack;   // copy_bucket_to_grad spans, in trace order
    std::vector<Launch> launches; // of the one launch kind the buckets are read from, by start
    std::vector<const CollectiveRecord*> executions; // the all_reduces that ran, in trace order
    // record_shapes' first input per event, for the ops that have one kept (trace_event.h).
    std::unordered_map<std::uint32_t, const ShapeArgs*> shapeOf;
};

enum class Role : std::uint8_t { None, EvaluateFunction, AccumulateGrad, CopyBack, Launch };

// Launch kinds by preference: the first a trace has is the one its buckets are read from.
constexpr std::array<LaunchKind, 4> kLaunchPreference{LaunchKind::BucketSpan, LaunchKind::C10d,
                                                      LaunchKind::ParamComms, LaunchKind::Host};

struct NameRole {
    Role role = Role::None;
    LaunchKind launch = LaunchKind::None;
};

NameRole roleOf(std::string_view name) {
    static const std::map<std::string_view, NameRole> kExact{
        {"torch::autograd::AccumulateGrad", {Role::AccumulateGrad}},
        {"torch.distributed.ddp.reducer::copy_bucket_to_grad", {Role::CopyBack}},
        {"c10d::allreduce_", {Role::Launch, LaunchKind::C10d}},
        {"record_param_comms", {Role::Launch, LaunchKind::ParamComms}},
        {"nccl:all_reduce", {Role::Launch, LaunchKind::Host}}};
    if (name.starts_with("autograd::engine::evaluate_function:")) {
        return {Role::EvaluateFunction};
    }
    if (name.starts_with("c10d::allreduce_bucket#")) {
        return {Role::Launch, LaunchKind::BucketSpan};
    }
    const auto exact = kExact.find(name);
    return exact == kExact.end() ? NameRole{} : exact->second;
}

// Bytes per element of a tensor type as record_shapes writes it ("Input type"); 0 for one
// that is not a floating type a gradient has.
int bytesPerElement(std::string_view type) {
    return type == "float"                                  ? 4
           : type == "double"                               ? 8
           : type == "c10::Half" || type == "c10::BFloat16" ? 2
                                                            : 0;
}

// ", and the reader dropped ... (its warnings)" where the reader dropped events: the spans a
// backward needs may be among them, and the refusal should say so.
std::string droppedByReader(const Trace& trace) {
    std::string out;
    for (const std::string& w : trace.warnings) {
        if (w.find("dropped") != std::string::npos) {
            out += (out.empty() ? " left after the reader dropped events (" : "; ") + w;
        }
    }
    return out.empty() ? out : out + ")";
}

// Every launch span of every kind, with how many each kind has; the events' names are
// classified once per interned string, not once per event.
std::array<std::size_t, 5> collect(const Trace& trace, BackwardSpans& out) {
    std::vector<NameRole> roles(trace.strings.size());
    for (std::uint32_t id = 0; id < trace.strings.size(); ++id) {
        roles[id] = roleOf(trace.strings.at(id));
    }
    // record_param_comms spans of all-reduces only (they also mark broadcasts, gathers, ...).
    std::vector<bool> allReduceComms(trace.events.size(), false);
    for (const CommArgs& c : trace.comms) {
        if (collectiveKind(c.collective) == "all_reduce") {
            allReduceComms[c.event] = true;
        }
    }
    for (const ShapeArgs& a : trace.shapes) {
        out.shapeOf.emplace(a.event, &a);
    }
    // The span list of each role before Launch, in Role's order.
    using List = std::vector<const TraceEvent*> BackwardSpans::*;
    constexpr List kLists[] = {nullptr, &BackwardSpans::evaluate, &BackwardSpans::accumulate,
                               &BackwardSpans::copyBack};
    std::array<std::size_t, 5> launchCount{};
    for (std::size_t i = 0; i < trace.events.size(); ++i) {
        const TraceEvent& e = trace.events[i];
        const NameRole r = roles[e.name];
        if (r.role != Role::Launch) {
            if (r.role != Role::None) {
                (out.*kLists[std::size_t(r.role)]).push_back(&e);
            }
        } else if ((r.launch != LaunchKind::ParamComms || allReduceComms[i]) && !e.deviceWork()) {
            const auto shape = out.shapeOf.find(std::uint32_t(i));
            out.launches.push_back({r.launch, e.startUs, e.endUs,
                                    r.launch == LaunchKind::C10d && shape != out.shapeOf.end()
                                        ? std::optional<std::int64_t>(shape->second->elements)
                                        : std::nullopt});
            ++launchCount[std::size_t(r.launch)];
        }
    }
    return launchCount;
}

// Throws TraceError naming the trace when it holds no AccumulateGrad span.
BackwardSpans backwardSpans(const Trace& trace) {
    BackwardSpans out;
    const std::array<std::size_t, 5> launchCount = collect(trace, out);
    if (out.accumulate.empty()) {
        throw TraceError(trace.source + ": no torch::autograd::AccumulateGrad span" +
                         droppedByReader(trace) +
                         ": not a trace of a backward pass (a DDP job's training step), or one "
                         "recorded without its CPU ops");
    }
    // A trace may show one bucket by several spans (a c10d::allreduce_ and its
    // record_param_comms): buckets are read from one kind only, the most direct it has.
    const auto preferred = std::ranges::find_if(
        kLaunchPreference, [&](LaunchKind k) { return launchCount[std::size_t(k)] > 0; });
    const LaunchKind kind = preferred == kLaunchPreference.end() ? LaunchKind::None : *preferred;
    std::erase_if(out.launches, [&](const Launch& l) { return l.kind != kind; });
    std::ranges::sort(out.evaluate, {}, &TraceEvent::startUs);
    std::ranges::sort(out.accumulate, {}, &TraceEvent::endUs);
    std::ranges::sort(out.launches, {}, &Launch::startUs);
    for (const CollectiveRecord& c : trace.collectives) {
        if (c.kind == "all_reduce") {
            out.executions.push_back(&c);
        }
    }
    return out;
}

bool inside(const Span& w, double t) {
    return t >= w.start && t <= w.end;
}

// Whether DDP's reducer launched the collectives (as buckets fill, during the backward), said
// where it did not.
void recogniseReducer(DdpRankSteps* out) {
    // One collective an iteration, after the last gradient, is also DDP with a single bucket
    // (every gradient in it): only several, all after the backward, tell a hand-reduced job.
    bool after = true, perGradient = true, several = false;
    for (const DdpIteration& it : out->iterations) {
        for (const BucketCollective& b : it.buckets) {
            after = after && b.launchUs >= it.computeEndUs;
        }
        several = several || it.buckets.size() >= 2;
        perGradient = perGradient && it.gradientReadyUs.size() >= 2 &&
                      it.buckets.size() == it.gradientReadyUs.size();
    }
    after = after && several;
    out->reducedAfterBackward = after;
    out->reducedPerGradient = perGradient;
    if (after) {
        out->notes.push_back(
            "every all_reduce starts after the backward's last gradient: not DDP's reducer, which "
            "launches each bucket as it fills (gradients reduced by hand, or a hook-less job); "
            "the replay takes its collectives as they ran, and caps and hooks do not shape it");
    } else if (perGradient) {
        out->notes.push_back(
            "one all_reduce per gradient in every iteration: a compiled job's (torch.compile "
            "reducing each gradient) or one that reduces each gradient itself, not DDP's "
            "buckets; caps and hooks do not shape it");
    }
}

// A distributedInfo rank outside [0, world size) is no rank of the job: refused, naming the
// file, before it is shown as one.
void checkRank(const Trace& trace) {
    const DistributedInfo& d = trace.distributed;
    if (d.rank && (*d.rank < 0 || (d.worldSize && *d.rank >= *d.worldSize))) {
        throw TraceError(trace.source + ": distributedInfo.rank " + std::to_string(*d.rank) +
                         (d.worldSize
                              ? " is outside its world size " + std::to_string(*d.worldSize) +
                                    " (ranks 0 to " + std::to_string(*d.worldSize - 1) + ")"
                              : std::string(" is negative")) +
                         ": not a rank of a job");
    }
    if (d.worldSize && *d.worldSize < 1) {
        throw TraceError(trace.source + ": distributedInfo.world_size " +
                         std::to_string(*d.worldSize) + " is below 1: not a job's world size");
    }
}

// What the trace says of its rank and job, before any iteration is read.
DdpRankSteps rankHeader(const Trace& trace) {
    DdpRankSteps out;
    out.source = trace.source;
    out.rank = rankOf(trace);
    out.legacy = trace.htaFacts.rootIsArray;
    if (trace.distributed.worldSize) {
        out.worldSize = int(*trace.distributed.worldSize);
    }
    checkRank(trace);
    out.warnings = trace.warnings;
    out.readInPart = std::ranges::any_of(out.warnings, saysReadInPart);
    out.backend = trace.distributed.backend;
    return out;
}

// Where the trace has no distributedInfo backend, its collectives tell it.
void readDevice(const BackwardSpans& spans, DdpRankSteps& out) {
    const std::vector<const CollectiveRecord*>& executions = spans.executions;
    out.onDevice = std::ranges::any_of(executions, &CollectiveRecord::onDevice);
    if (out.backend.empty() && !executions.empty()) {
        const std::string& written = executions.front()->written;
        out.backend = written.rfind("gloo", 0) == 0  ? "gloo"
                      : executions.front()->onDevice ? "nccl"
                                                     : std::string();
    }
}

// What the iterations left out or guessed, counted over the whole trace for its notes.
struct Tally {
    bool allSized = true;
    bool sizedFromShapes = false;
    std::size_t withoutBackward = 0;
    std::size_t withoutLaunch = 0;
    std::size_t absurdSizes = 0;
    std::vector<std::optional<int>> stepOfGradient; // per AccumulateGrad span, the step it is in
};

// The iteration's backward compute: its start, its gradients in ready order (with their
// bytes per element, 0 where unknown) and the end of its evaluate_function spans. False for a
// window without a backward.
bool readBackward(const Trace& trace, const BackwardSpans& spans, const StepWindow& w,
                  DdpIteration& it, std::vector<int>& gradientBytes, Tally& tally) {
    const auto firstEval =
        std::ranges::find_if(spans.evaluate, [&](auto* e) { return inside(w.window, e->startUs); });
    if (firstEval == spans.evaluate.end()) {
        return false;
    }
    it.backwardStartUs = (*firstEval)->startUs;
    it.backwardEndUs = it.backwardStartUs;
    for (auto e = firstEval; e != spans.evaluate.end() && inside(w.window, (*e)->startUs); ++e) {
        it.backwardEndUs = std::max(it.backwardEndUs, (*e)->endUs);
    }
    for (std::size_t k = 0; k < spans.accumulate.size(); ++k) {
        const TraceEvent* a = spans.accumulate[k];
        if (!(inside(w.window, a->endUs) && a->startUs >= it.backwardStartUs)) {
            continue;
        }
        it.gradientReadyUs.push_back(a->endUs);
        const auto shape = spans.shapeOf.find(std::uint32_t(a - trace.events.data()));
        gradientBytes.push_back(
            shape == spans.shapeOf.end() ? 0 : bytesPerElement(shape->second->type));
        // Marked steps of one loop follow each other: a gradient in two is a trace whose steps
        // overlap, and the iterations read from it would disagree with the other ranks' for a
        // reason the trace, not the job, holds.
        std::optional<int>& step = tally.stepOfGradient[k];
        if (step && *step != w.step) {
            throw TraceError(trace.source + ": ProfilerStep#" + std::to_string(*step) +
                             " and ProfilerStep#" + std::to_string(w.step) +
                             " overlap: a gradient is ready inside both, so the steps' "
                             "gradients and collectives cannot be told apart");
        }
        step = w.step;
    }
    if (it.gradientReadyUs.empty()) {
        return false;
    }
    it.computeEndUs = it.gradientReadyUs.back();
    for (const TraceEvent* c : spans.copyBack) {
        if (inside(w.window, c->startUs)) {
            it.backwardEndUs = std::max(it.backwardEndUs, c->endUs);
        }
    }
    return true;
}

// Where the next launch of one iteration looks for its execution and its first gradient:
// launches, executions and gradients are all matched in time order.
struct Cursor {
    std::size_t nextExecution = 0;
    std::size_t nextGradient = 0;
};

// The all_reduce that ran for a launch: the first execution to start at or after it, inside
// the window.
void takeExecution(const BackwardSpans& spans, const Span& window, const Launch& l, Cursor& at,
                   BucketCollective& b, DdpIteration& it, Tally& tally) {
    const std::vector<const CollectiveRecord*>& executions = spans.executions;
    while (at.nextExecution < executions.size() &&
           executions[at.nextExecution]->startUs < l.startUs) {
        ++at.nextExecution;
    }
    if (at.nextExecution >= executions.size() ||
        !inside(window, executions[at.nextExecution]->startUs)) {
        return;
    }
    const CollectiveRecord& x = *executions[at.nextExecution++];
    b.startUs = x.startUs;
    b.endUs = x.startUs + x.durationUs;
    b.elements = x.inNelems;
    b.bytes = x.bytes;
    b.seq = x.seq;
    it.backwardEndUs = std::max(it.backwardEndUs, *b.endUs);
    // The one sanity rule for sizes (spec/sane_values.h): a bucket no memory holds is a
    // damaged count, not a size to replay.
    if (b.bytes && !(*b.bytes >= 0 && *b.bytes <= spec::kMaxSaneBytes)) {
        b.elements.reset();
        b.bytes.reset();
        ++tally.absurdSizes;
    }
}

// PyTorch 2.x's gloo on a CPU writes no record_param_comms: the bucket's elements are its
// c10d::allreduce_'s Input Dims, its dtype its gradients'.
void sizeFromShapes(const Launch& l, const std::vector<int>& gradientBytes, BucketCollective& b,
                    Tally& tally) {
    if (b.elements || !l.elements || b.gradients <= 0) {
        return;
    }
    const int size = gradientBytes[std::size_t(b.firstGradient)];
    const double bytes = double(*l.elements) * size;
    if (size > 0 && bytes >= 0 && bytes <= spec::kMaxSaneBytes) {
        b.elements = l.elements;
        b.bytes = bytes;
        tally.sizedFromShapes = true;
    } else if (size > 0) {
        ++tally.absurdSizes;
    }
}

// The iteration's buckets: each launch in its backward, the execution that followed it and
// the gradients ready since the launch before.
void readBuckets(const BackwardSpans& spans, const StepWindow& w,
                 const std::vector<int>& gradientBytes, DdpIteration& it, Tally& tally) {
    Cursor at;
    for (const Launch& l : spans.launches) {
        if (!inside(w.window, l.startUs) || l.startUs < it.backwardStartUs) {
            continue;
        }
        BucketCollective b;
        b.launchUs = l.startUs;
        if (l.kind == LaunchKind::BucketSpan) {
            it.backwardEndUs = std::max(it.backwardEndUs, l.endUs);
        }
        takeExecution(spans, w.window, l, at, b, it, tally);
        b.firstGradient = int(at.nextGradient);
        while (at.nextGradient < it.gradientReadyUs.size() &&
               it.gradientReadyUs[at.nextGradient] <= l.startUs) {
            ++at.nextGradient;
        }
        b.gradients = int(at.nextGradient) - b.firstGradient;
        sizeFromShapes(l, gradientBytes, b, tally);
        tally.allSized = tally.allSized && b.elements.has_value();
        it.buckets.push_back(b);
    }
    if (!it.buckets.empty()) {
        // Gradients ready after the last launch went with it (a launch from the reducer's
        // finalize, for parameters that had no gradient: the trace would show no later one).
        it.buckets.back().gradients += int(it.gradientReadyUs.size() - at.nextGradient);
    }
}

// One marked step (or the whole trace) as an iteration; nullopt, counted, where it holds no
// backward or its backward launched no all_reduce.
std::optional<DdpIteration> readIteration(const Trace& trace, const BackwardSpans& spans,
                                          const StepWindow& w, Tally& tally) {
    DdpIteration it;
    it.step = w.step;
    it.window = w.window;
    std::vector<int> gradientBytes; // per element, from AccumulateGrad's "Input type"
    if (!readBackward(trace, spans, w, it, gradientBytes, tally)) {
        ++tally.withoutBackward;
        return std::nullopt;
    }
    readBuckets(spans, w, gradientBytes, it, tally);
    if (it.buckets.empty()) {
        ++tally.withoutLaunch;
        return std::nullopt;
    }
    it.backwardEndUs = std::min(std::max(it.backwardEndUs, it.computeEndUs), w.window.end);
    return it;
}

// What the iterations left out, dropped or guessed, said once for the whole trace.
void addNotes(const Tally& tally, DdpRankSteps& out) {
    if (tally.withoutBackward > 0) {
        out.notes.push_back(std::to_string(tally.withoutBackward) +
                            " marked iterations without a backward left out");
    }
    if (tally.withoutLaunch > 0) {
        out.notes.push_back(std::to_string(tally.withoutLaunch) +
                            " iterations whose backward launched no all_reduce left out");
    }
    if (tally.absurdSizes > 0) {
        out.warnings.push_back(std::to_string(tally.absurdSizes) +
                               " bucket collectives' element counts give more than 16 TiB: "
                               "dropped as absurd, their sizes taken as unknown");
    }
    if (tally.allSized && tally.sizedFromShapes) {
        out.notes.push_back("its collectives' sizes are c10d::allreduce_'s Input Dims "
                            "(record_shapes; no record_param_comms), their dtypes those of the "
                            "gradients' AccumulateGrad");
    }
    if (!tally.allSized) {
        out.notes.push_back("its collectives carry no element counts (the legacy export, "
                            "commprof-rank's older traces and PyTorch 2.x's gloo profiled "
                            "without record_shapes write none): gradient bytes need "
                            "--params FILE");
    }
}

} // namespace

DdpRankSteps ddpSteps(const Trace& trace) {
    DdpRankSteps out = rankHeader(trace);
    const BackwardSpans spans = backwardSpans(trace);
    readDevice(spans, out);

    const std::vector<StepWindow> windows = stepWindows(trace, &out.stepsMarked);
    if (!out.stepsMarked) {
        out.notes.push_back("no ProfilerStep# marks: the whole trace is taken as one iteration");
    }
    Tally tally;
    tally.stepOfGradient.resize(spans.accumulate.size());
    for (const StepWindow& w : windows) {
        if (std::optional<DdpIteration> it = readIteration(trace, spans, w, tally)) {
            out.iterations.push_back(std::move(*it));
        }
    }
    if (out.iterations.empty()) {
        throw TraceError(trace.source +
                         (tally.withoutLaunch > 0
                              ? ": its backward launched no all_reduce: not a DDP job (or one "
                                "recorded without its communication ops)"
                              : ": no iteration holds a backward pass"));
    }
    out.sized = tally.allSized;
    recogniseReducer(&out);
    addNotes(tally, out);
    return out;
}

} // namespace commprof::trace
