#include "classification.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <unordered_map>

namespace commprof::trace {
namespace {

bool startsWith(std::string_view s, std::string_view prefix) {
    return s.substr(0, prefix.size()) == prefix;
}

bool containsNoCase(std::string_view haystack, std::string_view needle) {
    return std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end(),
                       [](char a, char b) {
                           return std::tolower(static_cast<unsigned char>(a)) ==
                                  std::tolower(static_cast<unsigned char>(b));
                       }) != haystack.end();
}

bool isKernel(std::string_view cat) {
    return cat == "kernel";
}
bool isMemcpy(std::string_view cat) {
    return cat == "gpu_memcpy";
}

const std::array<ClassificationRule, 7> kDeviceTable{{
    {"kernel named *nccl* (any case)",
     [](std::string_view c, std::string_view n) {
         return isKernel(c) && containsNoCase(n, "nccl");
     },
     EventClass::Communication},
    {"any other kernel", [](std::string_view c, std::string_view) { return isKernel(c); },
     EventClass::Compute},
    {"gpu_memcpy device to device",
     [](std::string_view c, std::string_view n) {
         return isMemcpy(c) && n.find("DtoD") != std::string_view::npos;
     },
     EventClass::Bookkeeping},
    {"any other gpu_memcpy (crosses a device boundary)",
     [](std::string_view c, std::string_view) { return isMemcpy(c); }, EventClass::Communication},
    {"gpu_memset", [](std::string_view c, std::string_view) { return c == "gpu_memset"; },
     EventClass::Bookkeeping},
    {"host gloo:/nccl:/c10d::/record_param_comms",
     [](std::string_view, std::string_view n) { return isHostCommunicationName(n); },
     EventClass::Communication},
    {"every other host event", [](std::string_view, std::string_view) { return true; },
     EventClass::NotCounted},
}};

const std::array<ClassificationRule, 4> kHostTable{{
    {"gloo:/nccl:/c10d::/record_param_comms",
     [](std::string_view, std::string_view n) { return isHostCommunicationName(n); },
     EventClass::Communication},
    {"torch.distributed.ddp.reducer::* or ddp::bucket_copy*",
     [](std::string_view, std::string_view n) {
         return startsWith(n, "torch.distributed.ddp.reducer::") ||
                startsWith(n, "ddp::bucket_copy");
     },
     EventClass::Bookkeeping},
    // Compute minus bookkeeping is applied by the metrics, which see both span sets.
    {"aten::*", [](std::string_view, std::string_view n) { return startsWith(n, "aten::"); },
     EventClass::Compute},
    {"anything else", [](std::string_view, std::string_view) { return true; },
     EventClass::NotCounted},
}};

} // namespace

bool isHostCommunicationName(std::string_view name) {
    return startsWith(name, "gloo:") || startsWith(name, "nccl:") || startsWith(name, "c10d::") ||
           name.find("record_param_comms") != std::string_view::npos;
}

std::span<const ClassificationRule> deviceRegimeTable() {
    return kDeviceTable;
}
std::span<const ClassificationRule> hostRegimeTable() {
    return kHostTable;
}

EventClass classify(Regime regime, std::string_view category, std::string_view name) {
    const auto table = regime == Regime::Device ? deviceRegimeTable() : hostRegimeTable();
    for (const auto& rule : table) {
        if (rule.matches(category, name)) {
            return rule.cls;
        }
    }
    return EventClass::NotCounted;
}

Regime detectRegime(const Trace& trace) {
    for (const auto& e : trace.events) {
        const auto& c = trace.category(e);
        if (c == "kernel" || c == "gpu_memcpy" || c == "gpu_memset") {
            return Regime::Device;
        }
    }
    return Regime::Host;
}

void classify(Trace& trace) {
    trace.regime = detectRegime(trace);
    // Classes depend only on (category, name): decide each distinct pair once.
    std::unordered_map<std::uint64_t, EventClass> memo;
    for (auto& e : trace.events) {
        const std::uint64_t key = (std::uint64_t(e.name) << 32) | e.category;
        auto it = memo.find(key);
        if (it == memo.end()) {
            it = memo.emplace(key, classify(trace.regime, trace.category(e), trace.name(e))).first;
        }
        e.cls = it->second;
    }
}

} // namespace commprof::trace
