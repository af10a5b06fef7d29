// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What `commprof trace summarize` prints for one trace: its figures under trace-semantics.md
// and, when asked, HTA's. The two read the trace independently, so HTA's run beside.

#include "hta_figures.h"
#include "step_metrics.h"

#include <future>
#include <optional>

namespace commprof::trace {

struct TraceReport {
    TraceSummary summary;
    std::optional<HtaFigures> hta;
};

inline TraceReport reportOf(const Trace& trace, std::optional<Span> window, bool withHta) {
    TraceReport out;
    std::future<HtaFigures> hta;
    if (withHta) {
        hta = std::async(std::launch::async, [&] { return htaFigures(trace, window); });
    }
    out.summary = summarize(trace, window);
    if (withHta) {
        out.hta = hta.get();
    }
    return out;
}

} // namespace commprof::trace
