// SPDX-License-Identifier: GPL-3.0-or-later
#include "trace_report.h"

#include <future>

namespace commprof::trace {

TraceReport reportOf(const Trace& trace, std::optional<Span> window, bool withHta) {
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
