// SPDX-License-Identifier: GPL-3.0-or-later
#include "classification.h"

#include "huge_pages.h"
#include "id_table.h"
#include "intervals.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>

namespace commprof::trace {
namespace {

bool isCopy(std::string_view category, std::string_view name) {
    return category == "gpu_memcpy" || category == "Memcpy" || name.starts_with("Memcpy");
}

bool isMemset(std::string_view category, std::string_view name) {
    return category == "gpu_memset" || category == "Memset" || name.starts_with("Memset");
}

// A kernel of a collective library or implementation, by name.
bool isCollectiveKernelName(std::string_view name) {
    if (name.starts_with("multimem_")) {
        return true;
    }
    std::string lower(name);
    std::ranges::transform(lower, lower.begin(),
                           [](unsigned char c) { return char(std::tolower(c)); });
    for (std::string_view needle :
         {"nccl", "rccl", "all_reduce", "allreduce", "all_gather", "allgather", "reduce_scatter",
          "reducescatter", "all_to_all", "alltoall"}) {
        if (lower.find(needle) != std::string::npos) {
            return true;
        }
    }
    return false;
}

// A host span of a collective: gloo:*, nccl:*, c10d::* or *record_param_comms*, but not
// commprof-rank's own hook span (c10d::allreduce_bucket#N), which would make the hook-versus-
// backend check compare the hook with itself.
bool isHostCollectiveName(std::string_view name) {
    return !name.starts_with("c10d::allreduce_bucket#") &&
           (name.starts_with("gloo:") || name.starts_with("nccl:") || name.starts_with("c10d::") ||
            name.find("record_param_comms") != std::string_view::npos);
}

bool isKernel(const EventFacts& e) {
    return e.deviceWork && !isCopy(e.category, e.name) && !isMemset(e.category, e.name);
}
bool isDeviceCopy(const EventFacts& e) {
    return e.deviceWork && isCopy(e.category, e.name);
}

using Ctx = const TraceContext&;
using Ev = const EventFacts&;

const std::array<ClassificationRule, 9> kDeviceTable{{
    {"kernel of a collective library or implementation (nccl, rccl, multimem_, all_reduce, ...)",
     [](Ctx, Ev e) { return isKernel(e) && isCollectiveKernelName(e.name); },
     EventClass::Communication},
    {"any kernel launched by a collective",
     [](Ctx, Ev e) { return isKernel(e) && e.launchedByCollective; }, EventClass::Communication},
    {"any other kernel", [](Ctx, Ev e) { return isKernel(e); }, EventClass::Compute},
    {"device-to-device copy",
     [](Ctx, Ev e) { return isDeviceCopy(e) && e.name.find("DtoD") != std::string_view::npos; },
     EventClass::Bookkeeping},
    {"memset", [](Ctx, Ev e) { return e.deviceWork && isMemset(e.category, e.name); },
     EventClass::Bookkeeping},
    {"HtoD / DtoH / PtoP copy in a host-staged trace, or launched by a collective",
     [](Ctx t, Ev e) { return isDeviceCopy(e) && (t.hostStaged || e.launchedByCollective); },
     EventClass::Communication},
    {"any other HtoD / DtoH / PtoP copy (input loading, offload)",
     [](Ctx, Ev e) { return isDeviceCopy(e); }, EventClass::Memory},
    {"host span of a collective",
     [](Ctx, Ev e) { return !e.deviceWork && isHostCollectiveName(e.name); },
     EventClass::Communication},
    {"every other host event", [](Ctx, Ev) { return true; }, EventClass::NotCounted},
}};

const std::array<ClassificationRule, 4> kHostTable{{
    {"host span of a collective", [](Ctx, Ev e) { return isHostCollectiveName(e.name); },
     EventClass::Communication},
    {"torch.distributed.ddp.reducer::* or ddp::bucket_copy*",
     [](Ctx, Ev e) {
         return e.name.starts_with("torch.distributed.ddp.reducer::") ||
                e.name.starts_with("ddp::bucket_copy");
     },
     EventClass::Bookkeeping},
    // Compute minus bookkeeping is applied by the metrics, which see both span sets.
    {"aten::*", [](Ctx, Ev e) { return e.name.starts_with("aten::"); }, EventClass::Compute},
    {"anything else", [](Ctx, Ev) { return true; }, EventClass::NotCounted},
}};

bool isHostSideCategory(std::string_view c) {
    static const std::array<std::string_view, 11> named{
        "cpu_op", "user_annotation", "python_function",     "Operator", "Runtime", "Trace", "ac2g",
        "fwdbwd", "cuda_sync",       "cuda_profiler_range", "overhead"};
    return std::find(named.begin(), named.end(), c) != named.end() || c.ends_with("_runtime") ||
           c.ends_with("_driver") || c.ends_with("annotation") || c.ends_with("_sync");
}

// Device work: kernel, gpu_memcpy, gpu_memset and their 2021 names Kernel, Memcpy, Memset,
// MTIA's mtia_ccp_events, or any other category whose event sits on a numbered device stream,
// except runtime, driver, annotation and synchronisation categories (host-side calls that
// name a stream, like ROCm's).
bool isDeviceWork(std::string_view category, const TraceEvent& e) {
    static const std::array<std::string_view, 7> known{
        "kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset", "mtia_ccp_events"};
    return std::ranges::find(known, category) != known.end() ||
           (e.onStream && e.stream >= 0 && !category.empty() && !isHostSideCategory(category));
}

// For each event, whether its launch lies inside a host collective span on the same thread.
std::vector<bool> launchedByCollective(const Trace& trace, const NameFacts& names,
                                       const LaunchIndex& launches) {
    const auto& events = trace.events;
    std::vector<bool> out(events.size(), false);
    // Host collective spans per thread, merged.
    std::map<std::pair<std::int64_t, std::int64_t>, std::vector<Span>> spans;
    for (const auto& e : events) {
        if (!e.deviceWork() && names.hostCollective(e.name)) {
            spans[{e.pid, e.tid}].push_back({e.startUs, e.endUs});
        }
    }
    if (spans.empty()) {
        return out;
    }
    std::map<std::pair<std::int64_t, std::int64_t>, SpanSet> lanes;
    for (auto& [key, list] : spans) {
        lanes.emplace(key, SpanSet::unionOf(std::move(list)));
    }
    auto inside = [&](const TraceEvent& launch) {
        const auto it = lanes.find({launch.pid, launch.tid});
        if (it == lanes.end()) {
            return false;
        }
        const auto& s = it->second.spans();
        auto pos = std::ranges::upper_bound(s, launch.startUs, {}, &Span::start);
        if (pos == s.begin()) {
            return false;
        }
        --pos;
        return launch.startUs >= pos->start && launch.endUs <= pos->end;
    };
    for (std::uint32_t i = 0; i < events.size(); ++i) {
        if (const auto launch = launches.launchOf(i); launch && events[i].deviceWork()) {
            out[i] = inside(events[*launch]);
        }
    }
    return out;
}

} // namespace

NameFacts::NameFacts(const Trace& trace) : bits_(trace.strings.size(), 0) {
    for (std::uint32_t id = 0; id < bits_.size(); ++id) {
        const std::string& s = trace.strings.at(id);
        std::uint8_t b = 0;
        b |= isCollectiveKernelName(s) ? kCollectiveKernel : 0;
        b |= isHostCollectiveName(s) ? kHostCollective : 0;
        b |= s.starts_with("gloo:") ? kGlooSpan : 0;
        b |= (s == "gpu_memcpy" || s == "Memcpy") ? kCopyCategory : 0;
        b |= s.starts_with("Memcpy") ? kCopyName : 0;
        b |= (s == "gpu_memset" || s == "Memset") ? kMemsetCategory : 0;
        b |= s.starts_with("Memset") ? kMemsetName : 0;
        bits_[id] = b;
    }
}

std::span<const ClassificationRule> deviceRegimeTable() {
    return kDeviceTable;
}
std::span<const ClassificationRule> hostRegimeTable() {
    return kHostTable;
}

EventClass classify(const TraceContext& trace, const EventFacts& event) {
    const auto table = trace.regime == Regime::Device ? deviceRegimeTable() : hostRegimeTable();
    for (const auto& rule : table) {
        if (rule.matches(trace, event)) {
            return rule.cls;
        }
    }
    return EventClass::NotCounted;
}

LaunchIndex::LaunchIndex(const Trace& trace) {
    reserveHuge(launch_, trace.events.size());
    launch_.assign(trace.events.size(), kNone);
    const auto& events = trace.events;
    // The earliest runtime call in file order per correlation.
    IdTable<std::uint32_t> hosts(trace.flows.size());
    for (std::uint32_t i = 0; i < events.size(); ++i) {
        if (!events[i].deviceWork() && events[i].correlation >= 0) {
            hosts.at(events[i].correlation, i);
        }
    }
    for (std::uint32_t i = 0; i < events.size(); ++i) {
        const auto& e = events[i];
        if (e.deviceWork() && e.correlation >= 0) {
            if (const std::uint32_t* host = hosts.find(e.correlation)) {
                launch_[i] = *host;
            }
        }
    }
    for (const FlowLink& f : trace.flows) {
        if (launch_[f.device] == kNone && events[f.device].deviceWork() &&
            !events[f.launch].deviceWork()) {
            launch_[f.device] = f.launch;
        }
    }
}

TraceContext traceContext(const Trace& trace, const NameFacts& names) {
    TraceContext ctx;
    bool glooSpan = false;
    bool collectiveKernel = false;
    for (const auto& e : trace.events) {
        if (e.deviceWork()) {
            ctx.regime = Regime::Device;
            collectiveKernel = collectiveKernel || (!names.copy(e) && !names.memset(e) &&
                                                    names.collectiveKernel(e.name));
        } else {
            glooSpan = glooSpan || names.glooSpan(e.name);
        }
    }
    // Only gloo stages through the host: nccl: spans without kernels are an NCCL trace whose
    // kernels were not captured (docs/trace-semantics.md).
    ctx.hostStaged = ctx.regime == Regime::Device && glooSpan && !collectiveKernel;
    return ctx;
}

void markDeviceWork(Trace& trace) {
    // Device work depends on (category, stream): decide it once per category and stream kind.
    std::vector<std::int8_t> work(2 * trace.strings.size(), -1);
    for (auto& e : trace.events) {
        std::int8_t& w = work[2 * std::size_t(e.category) + (e.onStream && e.stream >= 0)];
        if (w < 0) {
            w = isDeviceWork(trace.category(e), e) ? 1 : 0;
        }
        e.flags = std::uint8_t(w ? e.flags | kDeviceWork : e.flags & ~kDeviceWork);
    }
}

void classify(Trace& trace, const NameFacts& names, const LaunchIndex& launches) {
    const TraceContext ctx = traceContext(trace, names);
    trace.regime = ctx.regime;
    const std::vector<bool> launched = ctx.regime == Regime::Device
                                           ? launchedByCollective(trace, names, launches)
                                           : std::vector<bool>(trace.events.size(), false);
    // Without a launch link a class depends only on (name, category, device work); almost
    // every name comes with one category, so remember the last answer per name.
    struct Memo {
        std::uint32_t category = 0;
        std::int8_t deviceWork = -1;
        EventClass cls = EventClass::NotCounted;
    };
    std::vector<Memo> memo(trace.strings.size());
    for (std::size_t i = 0; i < trace.events.size(); ++i) {
        auto& e = trace.events[i];
        Memo& m = memo[e.name];
        if (!launched[i] && m.deviceWork == std::int8_t(e.deviceWork()) &&
            m.category == e.category) {
            e.cls = m.cls;
            continue;
        }
        const EventFacts facts{trace.category(e), trace.name(e), e.deviceWork(), launched[i]};
        e.cls = classify(ctx, facts);
        if (!launched[i]) {
            m = {e.category, std::int8_t(e.deviceWork()), e.cls};
        }
    }
}

} // namespace commprof::trace
