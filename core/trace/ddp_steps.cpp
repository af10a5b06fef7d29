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
#include <string_view>
#include <unordered_map>

namespace commprof::trace {
namespace {

enum class Role : std::uint8_t {
    None,
    EvaluateFunction,
    AccumulateGrad,
    CopyBack,
    LaunchBucketSpan, // commprof-rank's comm_hook span: launch to completion
    LaunchC10d,       // c10d::allreduce_ (Python DDP through ProcessGroup)
    LaunchParamComms, // record_param_comms of an all-reduce (PyTorch 2.x)
    LaunchHost,       // nccl:all_reduce on the host
};

// Launch kinds by preference: the first a trace has is the one its buckets are read from.
constexpr std::array<Role, 4> kLaunchPreference{Role::LaunchBucketSpan, Role::LaunchC10d,
                                                Role::LaunchParamComms, Role::LaunchHost};

Role roleOf(std::string_view name) {
    if (name.rfind("autograd::engine::evaluate_function:", 0) == 0) {
        return Role::EvaluateFunction;
    }
    if (name == "torch::autograd::AccumulateGrad") {
        return Role::AccumulateGrad;
    }
    if (name == "torch.distributed.ddp.reducer::copy_bucket_to_grad") {
        return Role::CopyBack;
    }
    if (name.rfind("c10d::allreduce_bucket#", 0) == 0) {
        return Role::LaunchBucketSpan;
    }
    if (name == "c10d::allreduce_") {
        return Role::LaunchC10d;
    }
    if (name == "record_param_comms") {
        return Role::LaunchParamComms;
    }
    if (name == "nccl:all_reduce") {
        return Role::LaunchHost;
    }
    return Role::None;
}

bool inside(const Span& w, double t) {
    return t >= w.start && t <= w.end;
}

struct Launch {
    Role role = Role::None;
    double startUs = 0, endUs = 0;
    // A c10d::allreduce_ recorded with record_shapes: its bucket's elements ("Input Dims").
    std::optional<std::int64_t> elements;
};

// Bytes per element of a tensor type as record_shapes writes it ("Input type"); 0 for one
// that is not a floating type a gradient has.
int bytesPerElement(std::string_view type) {
    if (type == "float") {
        return 4;
    }
    if (type == "double") {
        return 8;
    }
    if (type == "c10::Half" || type == "c10::BFloat16") {
        return 2;
    }
    return 0;
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

} // namespace

DdpRankSteps ddpSteps(const Trace& trace) {
    DdpRankSteps out;
    out.source = trace.source;
    out.rank = rankOf(trace);
    out.legacy = trace.htaFacts.rootIsArray;
    if (trace.distributed.worldSize) {
        out.worldSize = int(*trace.distributed.worldSize);
    }
    checkRank(trace);
    out.warnings = trace.warnings;
    out.readInPart = std::any_of(out.warnings.begin(), out.warnings.end(),
                                 [](const std::string& w) { return saysReadInPart(w); });
    out.backend = trace.distributed.backend;

    std::vector<Role> roles(trace.strings.size(), Role::None);
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
    // record_shapes' first input per event, for the ops that have one kept (trace_event.h).
    std::unordered_map<std::uint32_t, const ShapeArgs*> shapeOf;
    for (const ShapeArgs& a : trace.shapes) {
        shapeOf.emplace(a.event, &a);
    }
    std::vector<const TraceEvent*> evaluate, accumulate, copyBack;
    std::vector<Launch> launches;
    std::array<std::size_t, 8> launchCount{};
    for (std::size_t i = 0; i < trace.events.size(); ++i) {
        const TraceEvent& e = trace.events[i];
        const Role role = roles[e.name];
        switch (role) {
        case Role::None:
            break;
        case Role::EvaluateFunction:
            evaluate.push_back(&e);
            break;
        case Role::AccumulateGrad:
            accumulate.push_back(&e);
            break;
        case Role::CopyBack:
            copyBack.push_back(&e);
            break;
        case Role::LaunchParamComms:
            if (!allReduceComms[i]) {
                break;
            }
            [[fallthrough]];
        default:
            if (!e.deviceWork()) {
                const auto shape = shapeOf.find(std::uint32_t(i));
                launches.push_back({role, e.startUs, e.endUs,
                                    role == Role::LaunchC10d && shape != shapeOf.end()
                                        ? std::optional<std::int64_t>(shape->second->elements)
                                        : std::nullopt});
                ++launchCount[std::size_t(role)];
            }
        }
    }
    if (accumulate.empty()) {
        throw TraceError(trace.source + ": no torch::autograd::AccumulateGrad span" +
                         droppedByReader(trace) +
                         ": not a trace of a backward pass (a DDP job's training step), or one "
                         "recorded without its CPU ops");
    }
    Role launchRole = Role::None;
    for (const Role r : kLaunchPreference) {
        if (launchCount[std::size_t(r)] > 0) {
            launchRole = r;
            break;
        }
    }
    std::erase_if(launches, [&](const Launch& l) { return l.role != launchRole; });
    const auto byStart = [](const auto* a, const auto* b) { return a->startUs < b->startUs; };
    std::sort(evaluate.begin(), evaluate.end(), byStart);
    std::sort(accumulate.begin(), accumulate.end(),
              [](const TraceEvent* a, const TraceEvent* b) { return a->endUs < b->endUs; });
    std::sort(launches.begin(), launches.end(),
              [](const Launch& a, const Launch& b) { return a.startUs < b.startUs; });
    std::vector<const CollectiveRecord*> executions;
    for (const CollectiveRecord& c : trace.collectives) {
        if (c.kind == "all_reduce") {
            executions.push_back(&c);
        }
    }
    out.onDevice = std::any_of(executions.begin(), executions.end(),
                               [](const CollectiveRecord* c) { return c->onDevice; });
    if (out.backend.empty() && !executions.empty()) {
        const std::string& written = executions.front()->written;
        out.backend = written.rfind("gloo", 0) == 0  ? "gloo"
                      : executions.front()->onDevice ? "nccl"
                                                     : std::string();
    }

    const std::vector<StepWindow> windows = stepWindows(trace, &out.stepsMarked);
    if (!out.stepsMarked) {
        out.notes.push_back("no ProfilerStep# marks: the whole trace is taken as one iteration");
    }
    bool allSized = true, sizedFromShapes = false;
    std::size_t withoutBackward = 0, withoutLaunch = 0;
    std::vector<std::optional<int>> stepOfGradient(accumulate.size());
    std::size_t absurdSizes = 0;
    for (const StepWindow& w : windows) {
        DdpIteration it;
        it.step = w.step;
        it.window = w.window;
        const auto firstEval = std::find_if(evaluate.begin(), evaluate.end(),
                                            [&](auto* e) { return inside(w.window, e->startUs); });
        if (firstEval == evaluate.end()) {
            ++withoutBackward;
            continue;
        }
        it.backwardStartUs = (*firstEval)->startUs;
        it.backwardEndUs = it.backwardStartUs;
        for (auto e = firstEval; e != evaluate.end() && inside(w.window, (*e)->startUs); ++e) {
            it.backwardEndUs = std::max(it.backwardEndUs, (*e)->endUs);
        }
        std::vector<int> gradientBytes; // per element, from AccumulateGrad's "Input type"
        for (std::size_t k = 0; k < accumulate.size(); ++k) {
            const TraceEvent* a = accumulate[k];
            if (inside(w.window, a->endUs) && a->startUs >= it.backwardStartUs) {
                it.gradientReadyUs.push_back(a->endUs);
                const auto shape = shapeOf.find(std::uint32_t(a - trace.events.data()));
                gradientBytes.push_back(
                    shape == shapeOf.end() ? 0 : bytesPerElement(shape->second->type));
                // Marked steps of one loop follow each other: a gradient in two is a trace
                // whose steps overlap, and the iterations read from it would disagree with the
                // other ranks' for a reason the trace, not the job, holds.
                if (stepOfGradient[k] && *stepOfGradient[k] != w.step) {
                    throw TraceError(trace.source + ": ProfilerStep#" +
                                     std::to_string(*stepOfGradient[k]) + " and ProfilerStep#" +
                                     std::to_string(w.step) +
                                     " overlap: a gradient is ready inside both, so the steps' "
                                     "gradients and collectives cannot be told apart");
                }
                stepOfGradient[k] = w.step;
            }
        }
        if (it.gradientReadyUs.empty()) {
            ++withoutBackward;
            continue;
        }
        it.computeEndUs = it.gradientReadyUs.back();
        for (const TraceEvent* c : copyBack) {
            if (inside(w.window, c->startUs)) {
                it.backwardEndUs = std::max(it.backwardEndUs, c->endUs);
            }
        }
        std::size_t nextExecution = 0;
        std::size_t nextGradient = 0;
        for (const Launch& l : launches) {
            if (!inside(w.window, l.startUs) || l.startUs < it.backwardStartUs) {
                continue;
            }
            BucketCollective b;
            b.launchUs = l.startUs;
            if (l.role == Role::LaunchBucketSpan) {
                it.backwardEndUs = std::max(it.backwardEndUs, l.endUs);
            }
            while (nextExecution < executions.size() &&
                   executions[nextExecution]->startUs < l.startUs) {
                ++nextExecution;
            }
            if (nextExecution < executions.size() &&
                inside(w.window, executions[nextExecution]->startUs)) {
                const CollectiveRecord& x = *executions[nextExecution++];
                b.startUs = x.startUs;
                b.endUs = x.startUs + x.durationUs;
                b.elements = x.inNelems;
                b.bytes = x.bytes;
                b.seq = x.seq;
                it.backwardEndUs = std::max(it.backwardEndUs, *b.endUs);
                // The one sanity rule for sizes (spec/sane_values.h): a bucket no memory holds
                // is a damaged count, not a size to replay.
                if (b.bytes && !(*b.bytes >= 0 && *b.bytes <= spec::kMaxSaneBytes)) {
                    b.elements.reset();
                    b.bytes.reset();
                    ++absurdSizes;
                }
            }
            b.firstGradient = int(nextGradient);
            while (nextGradient < it.gradientReadyUs.size() &&
                   it.gradientReadyUs[nextGradient] <= l.startUs) {
                ++nextGradient;
            }
            b.gradients = int(nextGradient) - b.firstGradient;
            if (!b.elements && l.elements && b.gradients > 0) {
                // PyTorch 2.x's gloo on a CPU writes no record_param_comms: the bucket's
                // elements are its c10d::allreduce_'s Input Dims, its dtype its gradients'.
                const int size = gradientBytes[std::size_t(b.firstGradient)];
                const double bytes = double(*l.elements) * size;
                if (size > 0 && bytes >= 0 && bytes <= spec::kMaxSaneBytes) {
                    b.elements = l.elements;
                    b.bytes = bytes;
                    sizedFromShapes = true;
                } else if (size > 0) {
                    ++absurdSizes;
                }
            }
            allSized = allSized && b.elements.has_value();
            it.buckets.push_back(b);
        }
        if (it.buckets.empty()) {
            ++withoutLaunch;
            continue;
        }
        // Gradients ready after the last launch went with it (a launch from the reducer's
        // finalize, for parameters that had no gradient: the trace would show no later one).
        it.buckets.back().gradients += int(it.gradientReadyUs.size() - nextGradient);
        it.backwardEndUs = std::min(std::max(it.backwardEndUs, it.computeEndUs), w.window.end);
        out.iterations.push_back(std::move(it));
    }
    if (out.iterations.empty()) {
        throw TraceError(trace.source +
                         (withoutLaunch > 0
                              ? ": its backward launched no all_reduce: not a DDP job (or one "
                                "recorded without its communication ops)"
                              : ": no iteration holds a backward pass"));
    }
    out.sized = allSized;
    recogniseReducer(&out);
    if (withoutBackward > 0) {
        out.notes.push_back(std::to_string(withoutBackward) +
                            " marked iterations without a backward left out");
    }
    if (withoutLaunch > 0) {
        out.notes.push_back(std::to_string(withoutLaunch) +
                            " iterations whose backward launched no all_reduce left out");
    }
    if (absurdSizes > 0) {
        out.warnings.push_back(std::to_string(absurdSizes) +
                               " bucket collectives' element counts give more than 16 TiB: "
                               "dropped as absurd, their sizes taken as unknown");
    }
    if (allSized && sizedFromShapes) {
        out.notes.push_back("its collectives' sizes are c10d::allreduce_'s Input Dims "
                            "(record_shapes; no record_param_comms), their dtypes those of the "
                            "gradients' AccumulateGrad");
    }
    if (!allSized) {
        out.notes.push_back("its collectives carry no element counts (the legacy export, "
                            "commprof-rank's older traces and PyTorch 2.x's gloo profiled "
                            "without record_shapes write none): gradient bytes need "
                            "--params FILE");
    }
    return out;
}

} // namespace commprof::trace
