// SPDX-License-Identifier: GPL-3.0-or-later
#include "ddp_backward_spans.h"

#include "trace_error.h"

#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <string_view>

namespace commprof::trace {
namespace {

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

} // namespace

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

int gradientElementBytes(const BackwardSpans& spans, const Trace& trace,
                         const TraceEvent& accumulate) {
    const auto shape = spans.shapeOf.find(std::uint32_t(&accumulate - trace.events.data()));
    return shape == spans.shapeOf.end() ? 0 : bytesPerElement(shape->second->type);
}

} // namespace commprof::trace
