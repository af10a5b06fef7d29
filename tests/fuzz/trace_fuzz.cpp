// SPDX-License-Identifier: GPL-3.0-or-later
// Feeds arbitrary bytes to the trace parser and everything computed from it. A TraceError is
// the expected answer to garbage; anything else (crash, hang, sanitizer report) is a bug. Each
// input is parsed twice, in one pass and in tiny checked chunks on two threads: the two must
// agree event for event, and no figure may be negative or NaN.

#include "trace/collectives.h"
#include "trace/hta_figures.h"
#include "trace/step_metrics.h"
#include "trace/trace_reader.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>

namespace {

using namespace commprof::trace;

std::optional<Trace> parse(std::string_view text, ParseOptions options) {
    try {
        return parseTraceText(text, "fuzz", options);
    } catch (const TraceError&) {
        return std::nullopt;
    }
}

void check(bool ok) {
    if (!ok) {
        std::abort();
    }
}

bool fine(double v) {
    return std::isfinite(v) && v >= 0;
}

void checkFigures(const StepMetrics& m) {
    check(fine(m.stepUs) && fine(m.computeUs) && fine(m.commUs) && fine(m.bookkeepingUs) &&
          fine(m.memoryUs) && fine(m.overlapUs) && fine(m.exposedCommUs));
    check(!m.overlapEfficiency || fine(*m.overlapEfficiency));
    check(!m.commOverheadFraction || fine(*m.commOverheadFraction));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const std::optional<Trace> one = parse(text, ParseOptions{1, std::size_t(1) << 40});
    const std::optional<Trace> chunked = parse(text, ParseOptions{2, 64});
    check(one.has_value() == chunked.has_value());
    if (!one) {
        return 0;
    }
    check(one->events.size() == chunked->events.size());
    check(one->warnings == chunked->warnings);
    for (std::size_t i = 0; i < one->events.size(); ++i) {
        const TraceEvent& a = one->events[i];
        const TraceEvent& b = chunked->events[i];
        check(a.startUs == b.startUs && a.endUs == b.endUs && a.offset == b.offset &&
              one->name(a) == chunked->name(b) && a.cls == b.cls);
    }
    const TraceSummary summary = summarize(*one);
    for (const auto& m : summary.steps) {
        checkFigures(m);
    }
    checkFigures(summary.totals);
    const HtaFigures hta = htaFigures(*one);
    for (const auto& v : {hta.compCommOverlapPctg, hta.idleTimeUs, hta.computeTimeUs,
                          hta.nonComputeTimeUs, hta.kernelTimeUs}) {
        check(!v || fine(*v));
    }
    for (const auto& c : one->collectives) {
        check(!c.bytes || fine(*c.bytes));
        check(!c.busbwGBps || fine(*c.busbwGBps));
    }
    return 0;
}
