// Feeds arbitrary bytes to the trace parser and everything computed from it. A TraceError is
// the expected answer to garbage; anything else (crash, hang, sanitizer report) is a bug.

#include "trace/hta_figures.h"
#include "trace/step_metrics.h"
#include "trace/trace_reader.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        const auto trace = commprof::trace::parseTraceText(
            std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
        const auto summary = commprof::trace::summarize(trace);
        const auto hta = commprof::trace::htaFigures(trace);
        for (const auto& m : summary.steps) {
            if (std::isnan(m.computeUs) || std::isnan(m.commUs) || std::isnan(m.stepUs) ||
                (m.overlapEfficiency && std::isnan(*m.overlapEfficiency))) {
                std::abort();
            }
        }
        if (hta.compCommOverlapPctg && std::isnan(*hta.compCommOverlapPctg)) {
            std::abort();
        }
    } catch (const commprof::trace::TraceError&) {
    }
    return 0;
}
