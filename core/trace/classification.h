#pragma once
// The classification tables of docs/trace-semantics.md, one per regime. This is the only
// place that decides what counts as compute, communication or bookkeeping.

#include "trace_event.h"

#include <span>
#include <string_view>

namespace commprof::trace {

struct ClassificationRule {
    const char* description;
    bool (*matches)(std::string_view category, std::string_view name);
    EventClass cls;
};

// Rules are tried in order; the first match decides. No match means NotCounted.
std::span<const ClassificationRule> deviceRegimeTable();
std::span<const ClassificationRule> hostRegimeTable();

Regime detectRegime(const Trace& trace);
EventClass classify(Regime regime, std::string_view category, std::string_view name);
// Sets trace.regime and every event's class.
void classify(Trace& trace);

bool isHostCommunicationName(std::string_view name);

} // namespace commprof::trace
