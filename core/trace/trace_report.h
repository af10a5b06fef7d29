// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What `commprof trace summarize` prints for one trace: its figures under trace-semantics.md
// and, when asked, HTA's. The two read the trace independently, so HTA's run beside.

#include "hta_figures.h"
#include "step_metrics.h"

#include <optional>

namespace commprof::trace {

struct TraceReport {
    TraceSummary summary;
    std::optional<HtaFigures> hta;
};

TraceReport reportOf(const Trace& trace, std::optional<Span> window, bool withHta);

} // namespace commprof::trace
