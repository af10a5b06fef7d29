// SPDX-License-Identifier: GPL-3.0-or-later
#include "collectives.h"

#include "classification.h"
#include "statistics.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <unordered_map>

namespace commprof::trace {
namespace {

std::string squashed(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        if (std::isalnum(static_cast<unsigned char>(c))) {
            out += char(std::tolower(static_cast<unsigned char>(c)));
        }
    }
    return out;
}

const CommArgs* argsOf(const Trace& trace, std::uint32_t event,
                       const std::unordered_map<std::uint32_t, std::size_t>& byEvent) {
    if (auto it = byEvent.find(event); it != byEvent.end()) {
        return &trace.comms[it->second];
    }
    return nullptr;
}

// Fills bytes, algbw and busbw from the record's message fields and duration.
void fillBandwidth(CollectiveRecord& r) {
    const auto size = dtypeBytes(r.dtype);
    if (!size) {
        return;
    }
    std::optional<std::int64_t> elements;
    if ((r.kind == "all_gather" || r.kind == "reduce_scatter" || r.kind == "gather" ||
         r.kind == "scatter") &&
        r.inNelems && r.outNelems) {
        elements = std::max(*r.inNelems, *r.outNelems); // nccl-tests' "size"
    } else {
        elements = r.inNelems ? r.inNelems : r.outNelems;
    }
    if (!elements || *elements < 0) {
        return;
    }
    r.bytes = double(*elements) * *size;
    if (!(r.durationUs > 0)) {
        return;
    }
    r.algbwGBps = *r.bytes / (r.durationUs * 1e-6) / 1e9;
    // One rank moves nothing over a bus (the factor is 0): its bus bandwidth is no figure, not
    // 0 GB/s.
    if (const auto f = busBandwidthFactor(r.kind, r.groupSize); f && *f > 0) {
        r.busbwGBps = *r.algbwGBps * *f;
    }
}

CollectiveRecord makeRecord(const Trace& trace, std::uint32_t index, const CommArgs* args) {
    const TraceEvent& e = trace.events[index];
    CollectiveRecord r;
    r.event = index;
    r.written = trace.name(e);
    r.onDevice = e.deviceWork();
    r.startUs = e.startUs;
    r.durationUs = e.durationUs();
    if (args) {
        if (!args->collective.empty()) {
            r.written = args->collective;
        }
        r.dtype = args->dtype;
        r.inNelems = args->inNelems;
        r.outNelems = args->outNelems;
        r.groupSize = args->groupSize;
        r.seq = args->seq;
        r.processGroup = args->processGroup;
        r.processGroupDesc = args->processGroupDesc;
    }
    r.kind = collectiveKind(r.written);
    if (r.kind == "other" && r.written != trace.name(e)) {
        r.kind = collectiveKind(trace.name(e));
    }
    fillBandwidth(r);
    return r;
}

// Outermost spans per thread among `candidates` (indices sorted by start).
std::vector<std::uint32_t> outermost(const Trace& trace, std::vector<std::uint32_t> candidates) {
    // By start, the longer of two that start together first.
    std::ranges::sort(candidates, {}, [&](std::uint32_t i) {
        return std::pair(trace.events[i].startUs, -trace.events[i].endUs);
    });
    std::map<std::pair<std::int64_t, std::int64_t>, double> openUntil;
    std::vector<std::uint32_t> out;
    for (std::uint32_t i : candidates) {
        const auto& e = trace.events[i];
        auto [it, fresh] = openUntil.try_emplace({e.pid, e.tid}, e.endUs);
        if (!fresh) {
            if (e.endUs <= it->second && e.startUs < it->second) {
                continue; // inside an earlier span on this thread
            }
            it->second = e.endUs;
        }
        out.push_back(i);
    }
    return out;
}

// The record_param_comms-style span with sizes that encloses `launch` on its thread.
const CommArgs* enclosingArgs(const Trace& trace, const TraceEvent& launch,
                              const std::vector<std::uint32_t>& sizedHostSpans,
                              const std::unordered_map<std::uint32_t, std::size_t>& byEvent) {
    const CommArgs* best = nullptr;
    double bestLength = 0;
    for (std::uint32_t i : sizedHostSpans) {
        const auto& s = trace.events[i];
        if (s.pid == launch.pid && s.tid == launch.tid && s.startUs <= launch.startUs &&
            launch.endUs <= s.endUs && (!best || s.durationUs() < bestLength)) {
            best = argsOf(trace, i, byEvent);
            bestLength = s.durationUs();
        }
    }
    return best;
}

} // namespace

std::string collectiveKind(std::string_view written) {
    const std::string s = squashed(written);
    // The first kind found, as squashed as the name, is it: "send_recv" before "send",
    // "all_gather" before "gather".
    for (const std::string_view kind :
         {"all_reduce", "reduce_scatter", "all_gather", "all_to_all", "broadcast", "send_recv",
          "barrier", "send", "recv", "gather", "scatter", "reduce"}) {
        if (s.find(squashed(kind)) != std::string::npos) {
            return std::string(kind);
        }
    }
    return "other";
}

std::optional<int> dtypeBytes(std::string_view dtype) {
    static const std::pair<int, std::vector<std::string_view>> bySize[] = {
        {1,
         {"Char", "Byte", "Bool", "bool", "Float8_e5m2", "Float8_e4m3fn", "Float8_e5m2fnuz",
          "Float8_e4m3fnuz", "QInt8", "QUInt8"}},
        {2, {"Half", "half", "BFloat16", "bfloat16", "Short", "short", "UInt16"}},
        {4, {"Float", "float", "Int", "int", "ComplexHalf", "UInt32", "QInt32"}},
        {8, {"Double", "double", "Long", "long", "ComplexFloat", "UInt64"}},
        {16, {"ComplexDouble"}}};
    for (const auto& [size, names] : bySize) {
        if (std::find(names.begin(), names.end(), dtype) != names.end()) {
            return size;
        }
    }
    return std::nullopt;
}

std::optional<double> busBandwidthFactor(std::string_view kind, std::optional<std::int64_t> n) {
    if (kind == "broadcast" || kind == "reduce" || kind == "send_recv" || kind == "send" ||
        kind == "recv") {
        return 1.0;
    }
    if (!n || *n < 1) {
        return std::nullopt;
    }
    const double ranks = double(*n);
    if (kind == "all_reduce") {
        return 2.0 * (ranks - 1) / ranks;
    }
    if (kind == "all_gather" || kind == "reduce_scatter" || kind == "all_to_all") {
        return (ranks - 1) / ranks;
    }
    return std::nullopt;
}

std::vector<CollectiveRecord> collectiveRecords(const Trace& trace, const NameFacts& names,
                                                const LaunchIndex& launches) {
    std::unordered_map<std::uint32_t, std::size_t> argsByEvent;
    for (std::size_t i = 0; i < trace.comms.size(); ++i) {
        argsByEvent.emplace(trace.comms[i].event, i);
    }
    std::vector<std::uint32_t> kernels, sized, named, c10d;
    for (std::uint32_t i = 0; i < trace.events.size(); ++i) {
        const TraceEvent& e = trace.events[i];
        if (e.deviceWork()) {
            if (!names.copy(e) && !names.memset(e) && names.collectiveKernel(e.name)) {
                kernels.push_back(i);
            }
            continue;
        }
        if (!names.hostCollective(e.name)) {
            continue;
        }
        const std::string& name = trace.name(e);
        if (argsByEvent.count(i)) {
            sized.push_back(i);
        } else if (name.rfind("c10d::", 0) == 0) {
            c10d.push_back(i);
        } else {
            named.push_back(i);
        }
    }
    std::vector<CollectiveRecord> out;
    if (!kernels.empty()) {
        // A kernel without its own sizes takes them from the span that launched it.
        for (std::uint32_t k : kernels) {
            const CommArgs* args = argsOf(trace, k, argsByEvent);
            if (const auto launch = launches.launchOf(k); !args && launch) {
                args = enclosingArgs(trace, trace.events[*launch], sized, argsByEvent);
            }
            out.push_back(makeRecord(trace, k, args));
        }
    } else {
        const auto& tier = !sized.empty() ? sized : (!named.empty() ? named : c10d);
        for (std::uint32_t i : outermost(trace, tier)) {
            out.push_back(makeRecord(trace, i, argsOf(trace, i, argsByEvent)));
        }
    }
    std::ranges::stable_sort(out, {}, &CollectiveRecord::startUs);
    return out;
}

std::vector<KindSummary> summarizeByKind(const std::vector<CollectiveRecord>& records) {
    std::map<std::string, KindSummary> byKind;
    std::map<std::string, std::vector<double>> bus, alg;
    for (const auto& r : records) {
        KindSummary& k = byKind[r.kind];
        k.kind = r.kind;
        ++k.count;
        if (r.bytes) {
            ++k.sized;
            k.totalBytes = k.totalBytes.value_or(0) + *r.bytes;
        }
        if (r.busbwGBps) {
            bus[r.kind].push_back(*r.busbwGBps);
        }
        if (r.algbwGBps) {
            alg[r.kind].push_back(*r.algbwGBps);
        }
    }
    std::vector<KindSummary> out;
    for (auto& [kind, k] : byKind) {
        k.medianBusbwGBps = median(bus[kind]);
        k.medianAlgbwGBps = median(alg[kind]);
        out.push_back(k);
    }
    return out;
}

bool startsIn(const CollectiveRecord& record, const std::optional<Span>& window) {
    return !window || (record.startUs >= window->start && record.startUs < window->end);
}

} // namespace commprof::trace
