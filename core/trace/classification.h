// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The classification tables of docs/trace-semantics.md, one per regime. This is the only
// place that decides what counts as compute, communication, bookkeeping or memory.

#include "trace_event.h"

#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace commprof::trace {

// What the rules know about one event, beyond its own category and name.
struct EventFacts {
    std::string_view category;
    std::string_view name;
    bool deviceWork = false;
    // Its launching runtime call (same correlation, or an ac2g flow) lies inside a host span
    // of a collective on the same thread.
    bool launchedByCollective = false;
};

// What the rules know about the whole trace.
struct TraceContext {
    Regime regime = Regime::Host;
    // gloo's host spans, device work, and no collective kernels: gloo over device tensors,
    // whose staging copies come from gloo's own threads.
    bool hostStaged = false;
};

struct ClassificationRule {
    const char* description;
    bool (*matches)(const TraceContext& trace, const EventFacts& event);
    EventClass cls;
};

// Rules are tried in order; the first match decides. No match means NotCounted.
std::span<const ClassificationRule> deviceRegimeTable();
std::span<const ClassificationRule> hostRegimeTable();
EventClass classify(const TraceContext& trace, const EventFacts& event);

// Device work: kernel, gpu_memcpy, gpu_memset and their 2021 names Kernel, Memcpy, Memset,
// MTIA's mtia_ccp_events, or any other category whose event sits on a numbered device stream,
// except runtime, driver, annotation and synchronisation categories (host-side calls that
// name a stream, like ROCm's).
bool isDeviceWork(std::string_view category, const TraceEvent& e);
// A kernel of a collective library or implementation, by name.
bool isCollectiveKernelName(std::string_view name);
// A host span of a collective: gloo:*, nccl:*, c10d::* or *record_param_comms*, but not
// commprof-rank's own hook span (c10d::allreduce_bucket#N), which would make the hook-versus-
// backend check compare the hook with itself.
bool isHostCollectiveName(std::string_view name);
bool isCopy(std::string_view category, std::string_view name);
bool isMemset(std::string_view category, std::string_view name);

// The name rules above, decided once per interned string of a trace.
class NameFacts {
public:
    explicit NameFacts(const Trace& trace);
    bool collectiveKernel(std::uint32_t name) const { return bits_[name] & kCollectiveKernel; }
    bool hostCollective(std::uint32_t name) const { return bits_[name] & kHostCollective; }
    bool glooSpan(std::uint32_t name) const { return bits_[name] & kGlooSpan; }
    // A copy or memset by its category or name.
    bool copy(const TraceEvent& e) const {
        return (bits_[e.category] & kCopyCategory) || (bits_[e.name] & kCopyName);
    }
    bool memset(const TraceEvent& e) const {
        return (bits_[e.category] & kMemsetCategory) || (bits_[e.name] & kMemsetName);
    }

private:
    enum : std::uint8_t {
        kCollectiveKernel = 1,
        kHostCollective = 2,
        kCopyCategory = 4,
        kCopyName = 8,
        kMemsetCategory = 16,
        kMemsetName = 32,
        kGlooSpan = 64,
    };
    std::vector<std::uint8_t> bits_;
};

// For each device event, the host event that launched it: the runtime call with the same
// args.correlation, else the one an ac2g flow joins it to. Needs the device-work flags.
class LaunchIndex {
public:
    explicit LaunchIndex(const Trace& trace);
    std::optional<std::uint32_t> launchOf(std::uint32_t device) const {
        return launch_[device] == kNone ? std::nullopt : std::optional(launch_[device]);
    }

private:
    static constexpr std::uint32_t kNone = ~std::uint32_t(0);
    std::vector<std::uint32_t> launch_; // per event
};

// Sets the device-work flag of every event (isDeviceWork, decided once per category).
void markDeviceWork(Trace& trace);
// For each event, whether its launch lies inside a host collective span on the same thread.
std::vector<bool> launchedByCollective(const Trace& trace, const NameFacts& names,
                                       const LaunchIndex& launches);
TraceContext traceContext(const Trace& trace, const NameFacts& names);
// Sets trace.regime and every event's class, after markDeviceWork; names and launches must be
// of this trace. The overload without them does all of it.
void classify(Trace& trace, const NameFacts& names, const LaunchIndex& launches);
void classify(Trace& trace);

} // namespace commprof::trace
