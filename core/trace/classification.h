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

// The name rules of docs/trace-semantics.md, decided once per interned string of a trace.
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
TraceContext traceContext(const Trace& trace, const NameFacts& names);
// Sets trace.regime and every event's class, after markDeviceWork; names and launches must be
// of this trace.
void classify(Trace& trace, const NameFacts& names, const LaunchIndex& launches);

} // namespace commprof::trace
