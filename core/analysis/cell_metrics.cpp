// SPDX-License-Identifier: GPL-3.0-or-later
#include "cell_metrics.h"

#include "spec/comm_hooks.h"

#include "spec/mapped.h"
#include "trace/intervals.h"
#include "trace/trace_job.h"
#include "trace/trace_reader.h"

#include <algorithm>
#include <map>

namespace commprof::analysis {
namespace {

std::optional<double> medianMs(const std::vector<trace::StepMetrics>& steps,
                               double trace::StepMetrics::*field) {
    return median(spec::mapped<std::vector<double>>(
        steps, [&](const trace::StepMetrics& s) { return s.*field / 1000.0; }));
}

// The rank-0 figures the cell has always quoted, from rank 0's summary.
void fillRankZeroFigures(CellMetrics& m, const trace::TraceSummary& s) {
    m.traceSteps = s.steps;
    m.traceCommMs = medianMs(s.steps, &trace::StepMetrics::commUs);
    m.computeMs = medianMs(s.steps, &trace::StepMetrics::computeUs);
    m.bookkeepingMs = medianMs(s.steps, &trace::StepMetrics::bookkeepingUs);
    m.exposedCommMs = medianMs(s.steps, &trace::StepMetrics::exposedCommUs);
    m.overlapEfficiency = s.totals.overlapEfficiency;
    m.commOverheadFraction = s.totals.commOverheadFraction;
}

// Why the hook's spans are not the backend's work under this hook, or empty where they are: the
// two instruments describe the same thing only where the hook's span is its collective.
QString notLikeForLike(const QString& hook) {
    const spec::CommHook* row = spec::findCommHook(hook.toStdString());
    if (!row || row->spanIsCollective) {
        return {};
    }
    if (row->wire == spec::HookWire::Nothing) {
        return QString("not judged: the %1 hook communicates nothing, so the backend has no work "
                       "to set beside it")
            .arg(hook);
    }
    return QString("not judged: the %1 hook's span holds its compression (matrix products and "
                   "orthogonalisation) beside its three all-reduces, the backend's spans only the "
                   "all-reduces")
        .arg(hook);
}

// The cell's verdict: both instruments summed over every rank's compared steps, and any rank
// that disagrees on its own named.
void judgeCell(CellMetrics& m, const QString& hook) {
    InstrumentAgreement cell;
    QStringList rankReasons;
    for (const RankFigures& r : m.ranks) {
        const InstrumentAgreement& a = r.agreement;
        cell.steps += a.steps;
        cell.hookUs += a.hookUs;
        cell.backendUs += a.backendUs;
        m.bucketsCompared += int(a.buckets.size());
        m.bucketsMatched += a.bucketsMatched;
        if (cell.backendSource.empty()) {
            cell.backendSource = a.backendSource;
        }
        if (a.flagged) {
            rankReasons << QString("rank %1: %2").arg(r.rank).arg(QString::fromStdString(a.reason));
        }
    }
    judgeAgreement(cell);
    m.agreementSteps = cell.steps;
    m.backendSource = QString::fromStdString(cell.backendSource);
    if (cell.steps > 0) {
        m.hookTotalMs = cell.hookUs / 1000.0;
        m.backendTotalMs = cell.backendUs / 1000.0;
    }
    m.hookTraceAgreement = cell.ratio;
    // The cell's verdict is the two instruments over all its ranks. A rank beyond the tolerance
    // on its own is named in the reason of a flagged cell and shown in its own row; alone it
    // does not flag the cell: on a shared host one rank's thread wake-ups can cost it more
    // than a tenth of its collectives' time while the cell as a whole agrees.
    m.agreementFlagged = cell.flagged;
    // A cell that is not judged has no rank judged either: its rank rows must not be flagged
    // (red) beside a cell that says "(not judged)".
    const auto notJudged = [&m](const QString& why) {
        m.agreementFlagged = false;
        m.agreementReason = why;
        for (RankFigures& r : m.ranks) {
            r.agreement.flagged = false;
        }
    };
    if (const QString why = notLikeForLike(hook); !why.isEmpty() && cell.steps > 0) {
        notJudged(why);
        return;
    }
    if (cell.flagged && m.ranks.size() == 1) {
        // One rank moves no data: gloo's all-reduce runs for microseconds, and what the hook
        // adds (a worker thread waking up) is all there is. The ratio is shown, not judged.
        notJudged("not judged at world size 1: nothing is communicated, the hook measures "
                  "launch and wake-up only");
        return;
    }
    if (cell.flagged) {
        m.agreementReason =
            (QStringList{QString::fromStdString(cell.reason)} + rankReasons).join("; ");
    }
}

// Per traced step across ranks: the spread of step times, and the slowest rank by collective
// arrival (trace/trace_job.h: under DDP every rank's step lasts as long as the slowest one's, so
// only arrival order tells which rank the others waited for).
void fillSpread(CellMetrics& m, const std::vector<const trace::Trace*>& traces,
                const std::vector<int>& ranks, const std::vector<trace::TraceSummary>& sums) {
    if (traces.size() < 2) {
        return;
    }
    const trace::JobAnalysis job = trace::analyzeJob(traces, ranks, sums);
    std::map<int, int> slowestCount;
    std::vector<double> skews;
    for (const trace::StepVerdict& v : job.steps) {
        if (v.stepUs.size() < 2) {
            continue;
        }
        const auto [lo, hi] =
            std::minmax_element(v.stepUs.begin(), v.stepUs.end(),
                                [](const auto& a, const auto& b) { return a.second < b.second; });
        StepSpread s{v.step, (hi->second - lo->second) / 1000.0, v.slowestRank};
        if (s.slowestRank) {
            ++slowestCount[*s.slowestRank];
        }
        skews.push_back(s.skewMs);
        m.spread.push_back(s);
    }
    m.medianSkewMs = median(skews);
    const auto most =
        std::max_element(slowestCount.begin(), slowestCount.end(),
                         [](const auto& a, const auto& b) { return a.second < b.second; });
    if (most != slowestCount.end()) {
        m.slowestRank = most->first;
    }
    for (const std::string& w : job.warnings) {
        m.warnings << QString::fromStdString(w);
    }
}

} // namespace

std::vector<HookBucket> hookBuckets(const results::RankRecord& rankFile) {
    return spec::mapped<std::vector<HookBucket>>(
        rankFile.buckets, [](const results::BucketRecord& b) {
            return HookBucket{b.iter, b.index, double(b.startNs) / 1000.0, double(b.endNs) / 1000.0,
                              double(b.bytes)};
        });
}

CellMetrics analyzeCell(const results::CellFiles& files) {
    CellMetrics m;
    std::vector<double> steps;
    for (const results::RankRecord& r : files.records) {
        for (const results::IterationRecord* it : r.recorded()) {
            steps.push_back(it->stepMs);
        }
        m.peakHostBytes = std::max(m.peakHostBytes, r.peakHostBytes);
        m.peakDeviceBytes = std::max(m.peakDeviceBytes, r.peakDeviceBytes);
    }
    m.stepMs = median(steps);
    m.ddpLogger = ddpLoggerFigures(files.records);
    if (m.ddpLogger.flagged && files.records.size() == 1) {
        m.ddpLogger.flagged = false; // as the trace's verdict (judgeCell): one rank moves no data
        m.ddpLogger.reason = "not judged at world size 1: " + m.ddpLogger.reason;
    }

    // The hook alone: per iteration, the union of rank 0's bucket intervals.
    if (files.records.contains(0)) {
        std::map<int, std::vector<trace::Span>> perIteration;
        for (const HookBucket& b : hookBuckets(files.records[0])) {
            perIteration[b.iteration].push_back({b.startUs, b.endUs});
        }
        m.hookCommMs =
            median(spec::mapped<std::vector<double>>(perIteration, [](const auto& spans) {
                return trace::SpanSet::unionOf(spans.second).length() / 1000.0;
            }));
    }

    // Every rank's trace against its own hook.
    std::vector<trace::Trace> traces;
    traces.reserve(files.records.size());
    std::vector<int> tracedRanks;
    std::vector<trace::TraceSummary> sums;
    for (auto it = files.records.begin(); it != files.records.end(); ++it) {
        RankFigures rf;
        rf.rank = it.key();
        rf.threads = std::max(1, it.value().threads);
        if (files.traces.contains(rf.rank)) {
            try {
                traces.push_back(trace::readTraceFile(files.traces[rf.rank].toStdString()));
                const trace::TraceSummary s = trace::summarize(traces.back());
                rf.traceSteps = s.steps;
                rf.stepMs = medianMs(s.steps, &trace::StepMetrics::stepUs);
                rf.commMs = medianMs(s.steps, &trace::StepMetrics::commUs);
                rf.exposedCommMs = medianMs(s.steps, &trace::StepMetrics::exposedCommUs);
                rf.agreement = compareInstruments(traces.back(), hookBuckets(it.value()));
                if (s.regime == trace::Regime::Host) {
                    rf.hostCompute = trace::classSpans(traces.back()).compute;
                }
                if (rf.rank == 0) {
                    fillRankZeroFigures(m, s);
                }
                for (const auto& w : s.warnings) {
                    m.warnings
                        << QString("rank %1: %2").arg(rf.rank).arg(QString::fromStdString(w));
                }
                tracedRanks.push_back(rf.rank);
                sums.push_back(s);
            } catch (const trace::TraceError& e) {
                rf.traceError = QString::fromStdString(e.what());
                if (m.traceError.isEmpty()) {
                    m.traceError = rf.traceError;
                }
                m.warnings << rf.traceError;
            }
        }
        m.ranks.push_back(std::move(rf));
    }
    judgeCell(m, files.record.config.hook);
    const auto tracePtrs = spec::mapped<std::vector<const trace::Trace*>>(
        traces, [](const trace::Trace& t) { return &t; });
    fillSpread(m, tracePtrs, tracedRanks, sums);
    return m;
}

} // namespace commprof::analysis
