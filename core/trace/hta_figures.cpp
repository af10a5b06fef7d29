#include "hta_figures.h"

#include "intervals.h"
#include "step_metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>

namespace commprof::trace {
namespace {

enum class HtaKernelType { Computation, Communication, Memory };

// HTA's kernel typing: by name only, over every event that carries a stream.
HtaKernelType htaKernelType(std::string_view name) {
    if (name.find("ncclKernel") != std::string_view::npos ||
        name.substr(0, 13) == "ncclDevKernel") {
        return HtaKernelType::Communication;
    }
    if (name.find("Memcpy") != std::string_view::npos ||
        name.find("Memset") != std::string_view::npos) {
        return HtaKernelType::Memory;
    }
    return HtaKernelType::Computation;
}

// HTA's merge: sort by start and fuse spans that start at or before the running end. Unlike
// SpanSet it keeps spans that rounding made empty or negative, and so must we to match it.
std::vector<Span> htaMerge(std::vector<Span> spans) {
    std::sort(spans.begin(), spans.end(),
              [](const Span& a, const Span& b) { return a.start < b.start; });
    std::vector<Span> out;
    for (const Span& s : spans) {
        if (!out.empty() && s.start <= out.back().end) {
            out.back().end = std::max(out.back().end, s.end);
        } else {
            out.push_back(s);
        }
    }
    return out;
}

double totalLength(const std::vector<Span>& spans) {
    double t = 0;
    for (const Span& s : spans) {
        t += s.length();
    }
    return t;
}

} // namespace

HtaFigures htaFigures(const Trace& trace) {
    // HTA leaves out the last profiler step: it drops events that start at or after the
    // start of the last host-side ProfilerStep.
    double cutoff = std::numeric_limits<double>::infinity();
    double lastStepStart = -std::numeric_limits<double>::infinity();
    const std::vector<std::optional<int>> stepOfName = stepNumbersByName(trace);
    for (const auto& e : trace.events) {
        if (!e.onStream && stepOfName[e.name] && e.startUs > lastStepStart) {
            lastStepStart = e.startUs;
            cutoff = e.startUs;
        }
    }
    std::vector<Span> all, compute, comm;
    for (const auto& e : trace.events) {
        if (!e.onStream) {
            continue;
        }
        // HTA rounds fractional microseconds inwards: ceil(start), floor(end).
        const double start = std::ceil(e.startUs);
        const double end = std::floor(e.endUs);
        if (start >= cutoff) {
            continue;
        }
        const Span s{start, end};
        all.push_back(s);
        switch (htaKernelType(trace.name(e))) {
        case HtaKernelType::Computation:
            compute.push_back(s);
            break;
        case HtaKernelType::Communication:
            comm.push_back(s);
            break;
        case HtaKernelType::Memory:
            break;
        }
    }
    HtaFigures out;
    out.deviceEvents = all.size();
    const std::vector<Span> allMerged = htaMerge(std::move(all));
    if (allMerged.empty()) {
        return out;
    }
    const std::vector<Span> computeMerged = htaMerge(std::move(compute));
    const std::vector<Span> commMerged = htaMerge(std::move(comm));
    out.kernelTimeUs = allMerged.back().end - allMerged.front().start;
    out.idleTimeUs = out.kernelTimeUs - totalLength(allMerged);
    out.computeTimeUs = totalLength(computeMerged);
    out.nonComputeTimeUs = out.kernelTimeUs - out.computeTimeUs - out.idleTimeUs;
    const double commTime = totalLength(commMerged);
    if (commTime > 0) {
        const double overlap =
            SpanSet::unionOf(computeMerged).intersect(SpanSet::unionOf(commMerged)).length();
        out.compCommOverlapPctg =
            std::round(100.0 * overlap / commTime * 100.0) / 100.0; // HTA prints two decimals
    }
    return out;
}

} // namespace commprof::trace
