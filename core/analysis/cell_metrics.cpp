#include "cell_metrics.h"

#include "trace/intervals.h"
#include "trace/trace_reader.h"

#include <QJsonArray>

#include <algorithm>
#include <map>

namespace commprof::analysis {

std::optional<double> median(std::vector<double> values) {
    if (values.empty()) {
        return std::nullopt;
    }
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

CellMetrics analyzeCell(const results::CellFiles& files) {
    CellMetrics m;
    std::vector<double> steps;
    for (auto it = files.ranks.begin(); it != files.ranks.end(); ++it) {
        const QJsonObject& r = it.value();
        const int from = r["record_from_iteration"].toInt();
        for (const QJsonValue v : r["iterations"].toArray()) {
            if (v.toObject()["iter"].toInt() >= from) {
                steps.push_back(v.toObject()["step_ms"].toDouble());
            }
        }
        m.peakHostBytes = std::max(m.peakHostBytes, r["peak_host_bytes"].toDouble());
        m.peakDeviceBytes = std::max(m.peakDeviceBytes, r["peak_device_bytes"].toDouble());
    }
    m.stepMs = median(steps);

    // The hook: per iteration, the union of rank 0's bucket intervals (ns -> us).
    std::map<int, std::vector<trace::Span>> perIteration;
    if (files.ranks.contains(0)) {
        for (const QJsonValue v : files.ranks[0]["buckets"].toArray()) {
            const QJsonObject b = v.toObject();
            perIteration[b["iter"].toInt()].push_back(
                {b["start_ns"].toDouble() / 1000.0, b["end_ns"].toDouble() / 1000.0});
        }
    }
    std::map<int, double> hookUs;
    std::vector<double> hookMs;
    for (auto& [iter, spans] : perIteration) {
        hookUs[iter] = trace::SpanSet::unionOf(spans).length();
        hookMs.push_back(hookUs[iter] / 1000.0);
    }
    m.hookCommMs = median(hookMs);

    if (files.traces.contains(0)) {
        try {
            const trace::TraceSummary s =
                trace::summarize(trace::readTraceFile(files.traces[0].toStdString()));
            m.traceSteps = s.steps;
            for (const auto& w : s.warnings) {
                m.warnings << QString::fromStdString(w);
            }
            std::vector<double> comm, compute, bookkeeping, exposed;
            double traceSum = 0, hookSum = 0;
            for (const auto& st : s.steps) {
                comm.push_back(st.commUs / 1000.0);
                compute.push_back(st.computeUs / 1000.0);
                bookkeeping.push_back(st.bookkeepingUs / 1000.0);
                exposed.push_back(st.exposedCommUs / 1000.0);
                if (auto h = hookUs.find(st.step); h != hookUs.end()) {
                    traceSum += st.commUs;
                    hookSum += h->second;
                }
            }
            m.traceCommMs = median(comm);
            m.computeMs = median(compute);
            m.bookkeepingMs = median(bookkeeping);
            m.exposedCommMs = median(exposed);
            m.overlapEfficiency = s.totals.overlapEfficiency;
            m.commOverheadFraction = s.totals.commOverheadFraction;
            if (hookSum > 0) {
                m.hookTraceAgreement = traceSum / hookSum;
                m.agreementFlagged = std::abs(*m.hookTraceAgreement - 1.0) > kAgreementTolerance;
            } else if (traceSum > 0) {
                m.agreementFlagged = true; // a value on one side and zero on the other
                m.warnings << "the trace shows communication in steps the hook did not record";
            }
        } catch (const trace::TraceError& e) {
            m.traceError = QString::fromStdString(e.what());
            m.warnings << m.traceError;
        }
    }
    return m;
}

} // namespace commprof::analysis
