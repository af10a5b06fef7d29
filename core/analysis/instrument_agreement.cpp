// SPDX-License-Identifier: GPL-3.0-or-later
#include "instrument_agreement.h"

#include "spec/mapped.h"
#include "trace/classification.h"
#include "trace/step_metrics.h"

#include <QString>

#include <algorithm>
#include <cmath>
#include <map>

namespace commprof::analysis {
namespace {

// The trace writes microseconds with three decimals; the hook's nanoseconds divided by 1000 can
// differ from them in the last digit.
constexpr double kClockSlackUs = 0.002;

// Backend spans of a trace: gloo:* host spans where there are any, else collective kernels.
std::vector<trace::Span> backendSpans(const trace::Trace& trace, std::string& source) {
    const trace::NameFacts names(trace);
    std::vector<trace::Span> gloo, kernels;
    for (const trace::TraceEvent& e : trace.events) {
        if (names.glooSpan(e.name)) {
            gloo.push_back({e.startUs, e.endUs});
        } else if (e.deviceWork() && names.collectiveKernel(e.name)) {
            kernels.push_back({e.startUs, e.endUs});
        }
    }
    auto& chosen = gloo.empty() ? kernels : gloo;
    source = chosen.empty() ? "" : gloo.empty() ? "collective kernels" : "gloo:* host spans";
    std::ranges::sort(chosen, {}, &trace::Span::start);
    return std::move(chosen);
}

} // namespace

InstrumentAgreement compareInstruments(const trace::Trace& trace,
                                       const std::vector<HookBucket>& hook) {
    InstrumentAgreement a;
    const std::vector<trace::Span> backend = backendSpans(trace, a.backendSource);
    const trace::SpanSet backendUnion = trace::SpanSet::unionOf(backend);
    const bool sameClock = a.backendSource == "gloo:* host spans";
    std::map<int, std::vector<HookBucket>> byIteration;
    for (const HookBucket& b : hook) {
        byIteration[b.iteration].push_back(b);
    }
    std::vector<bool> taken(backend.size(), false);
    for (const trace::StepWindow& w : trace::stepWindows(trace)) {
        const auto it = byIteration.find(w.step);
        if (it == byIteration.end()) {
            continue;
        }
        std::vector<HookBucket>& buckets = it->second;
        std::ranges::sort(buckets, {}, &HookBucket::startUs);
        const auto intervals =
            spec::mapped<std::vector<trace::Span>>(buckets, [](const HookBucket& b) {
                return trace::Span{b.startUs, b.endUs};
            });
        ++a.steps;
        a.hookUs += trace::SpanSet::unionOf(intervals).clip(w.window).length();
        a.backendUs += backendUnion.lengthWithin(w.window);
        for (const HookBucket& b : buckets) {
            BucketMatch m{b.iteration, b.index, b.bytes, b.endUs - b.startUs, {}, {}, {}};
            for (std::size_t i = 0; sameClock && i < backend.size(); ++i) {
                if (!taken[i] && backend[i].start >= b.startUs - kClockSlackUs &&
                    backend[i].start <= b.endUs + kClockSlackUs) {
                    taken[i] = true;
                    m.backendUs = backend[i].length();
                    m.backendStartUs = backend[i].start;
                    m.queuedUs = std::max(0.0, backend[i].start - b.startUs);
                    ++a.bucketsMatched;
                    break;
                }
            }
            a.buckets.push_back(m);
        }
    }
    judgeAgreement(a);
    return a;
}

void judgeAgreement(InstrumentAgreement& a) {
    a.ratio.reset();
    a.flagged = false;
    a.reason.clear();
    if (a.steps == 0) {
        return; // nothing to compare: no traced step the hook also recorded
    }
    if (a.hookUs <= 0 || a.backendUs <= 0) {
        // A value on one side and zero on the other is a parser bug until proven otherwise.
        a.flagged = a.hookUs > 0 || a.backendUs > 0;
        if (a.flagged) {
            a.reason = a.hookUs > 0 ? (a.backendSource.empty()
                                           ? "the trace has no backend collective work (gloo:* "
                                             "spans or collective kernels) in the hook's steps"
                                           : "the backend's spans lie outside the hook's steps")
                                    : "the hook recorded no bucket in the traced steps";
        }
        return;
    }
    a.ratio = a.backendUs / a.hookUs;
    const double deviation = *a.ratio - 1.0;
    if (std::abs(deviation) > kAgreementTolerance) {
        a.flagged = true;
        a.reason = QString("the backend (%1) measured %2 % %3 than the hook over %4 step(s)")
                       .arg(QString::fromStdString(a.backendSource),
                            QString::number(std::abs(deviation) * 100.0, 'f', 1),
                            deviation < 0 ? "less" : "more")
                       .arg(a.steps)
                       .toStdString();
    }
}

} // namespace commprof::analysis
