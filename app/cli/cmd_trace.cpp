// commprof trace summarize TRACE [--json] [--hta]

#include "cli_common.h"

#include "trace/hta_figures.h"
#include "trace/step_metrics.h"
#include "trace/summary_json.h"
#include "trace/trace_reader.h"

#include <QJsonArray>

namespace commprof::cli {
namespace {

QString formatSummary(const trace::TraceSummary& s) {
    QString out = QString("regime: %1, %2 step(s)%3\n")
                      .arg(trace::toString(s.regime))
                      .arg(s.steps.size())
                      .arg(s.stepsMarked ? "" : " (no ProfilerStep markers: one window)");
    out += QString("%1 %2 %3 %4 %5 %6 %7\n")
               .arg("step", 6)
               .arg("step_us", 12)
               .arg("compute_us", 12)
               .arg("comm_us", 12)
               .arg("bookkeep_us", 12)
               .arg("overlap_us", 12)
               .arg("exposed_us", 12);
    auto row = [&](const QString& label, const trace::StepMetrics& m) {
        out += QString("%1 %2 %3 %4 %5 %6 %7\n")
                   .arg(label, 6)
                   .arg(m.stepUs, 12, 'f', 1)
                   .arg(m.computeUs, 12, 'f', 1)
                   .arg(m.commUs, 12, 'f', 1)
                   .arg(m.bookkeepingUs, 12, 'f', 1)
                   .arg(m.overlapUs, 12, 'f', 1)
                   .arg(m.exposedCommUs, 12, 'f', 1);
    };
    for (const auto& m : s.steps) {
        row(QString::number(m.step), m);
    }
    row("total", s.totals);
    for (const auto& w : s.warnings) {
        out += QString("warning: %1\n").arg(QString::fromStdString(w));
    }
    return out;
}

int summarizeCommand(const QStringList& args) {
    QString path;
    bool json = false;
    bool hta = false;
    for (const QString& a : args) {
        if (a == "--json") {
            json = true;
        } else if (a == "--hta") {
            hta = true;
        } else if (a.startsWith("--")) {
            printError(QString("trace summarize: unknown option '%1'").arg(a));
            return BadInput;
        } else if (path.isEmpty()) {
            path = a;
        } else {
            return usage("commprof trace summarize TRACE [--json] [--hta]");
        }
    }
    if (path.isEmpty()) {
        return usage("commprof trace summarize TRACE [--json] [--hta]");
    }
    try {
        const trace::Trace t = trace::readTraceFile(path.toStdString());
        const trace::TraceSummary summary = trace::summarize(t);
        QJsonObject doc = trace::toJson(summary);
        if (hta) {
            const QJsonObject h = trace::toJson(trace::htaFigures(t));
            for (auto it = h.begin(); it != h.end(); ++it) {
                doc.insert(it.key(), it.value());
            }
        }
        if (json) {
            printJson(doc);
        } else {
            QString text = formatSummary(summary);
            if (hta) {
                text += "HTA-compatible figures:\n";
                for (const char* key : {"comp_comm_overlap_pctg", "idle_time_us", "compute_time_us",
                                        "non_compute_time_us", "kernel_time_us"}) {
                    const QJsonValue v = doc.value(key);
                    text +=
                        QString("  %1: %2\n")
                            .arg(key, v.isNull() ? "null" : QString::number(v.toDouble(), 'f', 2));
                }
            }
            printText(text);
        }
        return Ok;
    } catch (const trace::TraceError& e) {
        printError(QString::fromStdString(e.what()));
        return BadInput;
    }
}

} // namespace

int traceCommand(const QStringList& args) {
    if (args.isEmpty() || args.first() != "summarize") {
        return usage("commprof trace summarize TRACE [--json] [--hta]");
    }
    return summarizeCommand(args.mid(1));
}

} // namespace commprof::cli
