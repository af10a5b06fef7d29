// SPDX-License-Identifier: GPL-3.0-or-later
// commprof report: the tables, LaTeX macros, fits and figures of a results folder, or the
// what-if figure and macros of a DDP job's trace folder.
// Figures come from the workbench's own plot code (widgets/result_plots), rendered offscreen.

#include "cli_common.h"
#include "terminal_progress.h"

#include "analysis/ddp_job.h"
#include "analysis/step_parts.h"
#include "inputs/ddp_job_files.h"
#include "report/ddp_step_graph_text.h"
#include "report_writer.h"
#include "results/hook_calibration.h"
#include "results/results_folder.h"
#include "store/open_results.h"
#include "trace/trace_error.h"
#include "trace/trace_job.h"
#include "whatif_report.h"

#include <QDir>
#include <QFileInfo>

#include <cstdio>
#include <optional>

namespace commprof::cli {

namespace {

// What a page and its text can be: a figure narrower than 2 in or text under 5 pt cannot hold
// its axes, wider than a landscape page is no paper's figure.
constexpr double kMinWidthIn = 2.0;
constexpr double kMaxWidthIn = 12.0;
constexpr double kMinFontPt = 5.0;
constexpr double kMaxFontPt = 14.0;

// A figure size: the value of `flag` within [lo, hi] (in `unit`), or `fallback` when not given;
// otherwise *error says what was wrong.
std::optional<double> sizeOption(const Args& args, const char* flag, double lo, double hi,
                                 const char* unit, double fallback, QString* error) {
    if (!args.has(flag)) {
        return fallback;
    }
    bool ok = false;
    const double v = args.value(flag).toDouble(&ok);
    if (ok && v >= lo && v <= hi) {
        return v;
    }
    *error = QString("%1: expected %2 to %3 %4, got '%5'")
                 .arg(flag)
                 .arg(lo)
                 .arg(hi)
                 .arg(unit, args.value(flag));
    return std::nullopt;
}

// A folder that is no results folder but holds traces is a DDP job's: its what-if report.
bool isTraceFolder(const QString& dir) {
    if (results::checkResultsFolder(dir).ok || !QFileInfo(dir).isDir()) {
        return false;
    }
    try {
        return !trace::traceFilesIn(dir.toStdString()).empty();
    } catch (const std::exception&) {
        return false; // no trace in it: the results folder's own refusal says what it lacks
    }
}

int traceReport(const QString& dir, const QString& out, const QString& params,
                const widgets::ExportOptions& options) {
    const analysis::DdpJob job =
        inputs::readDdpJob({dir}, trace::ReadOptions::fromEnvironment(), params);
    const analysis::DdpStepGraph graph = job.graph();
    QString why;
    analysis::WhatIfOptions whatIfOptions;
    whatIfOptions.hookCalibration = results::storedHookCalibration(&why);
    if (!why.isEmpty()) {
        printError("warning: this machine's hook calibration is not used: " + why);
    }
    std::optional<analysis::WhatIf> w =
        analysis::whatIf(graph, job.params ? &*job.params : nullptr, whatIfOptions, &why);
    if (!w) {
        throw trace::TraceError((dir + ": cannot replay: " + why).toStdString());
    }
    // A cut or missing rank is flagged in what the report writes (whatif.json's incomplete and
    // warnings, the macros' source line, the figure) and on stderr, never presented as whole.
    for (const QString& line : report::describeWarnings(job).split('\n', Qt::SkipEmptyParts)) {
        printError(line);
    }
    for (const QString& f :
         widgets::writeWhatIfReport(*w, job, analysis::recordedParts(graph), dir, out, options)) {
        std::fprintf(stderr, "wrote %s\n", qPrintable(f));
    }
    return Ok;
}

} // namespace

int reportCommand(const Args& args) {
    const QString dir = args.operands().first();
    const QString out = args.value("--out");
    const QString db = args.value("--db", store::defaultDbPath(dir));
    widgets::ExportOptions options;
    QString error;
    const std::optional<double> width =
        sizeOption(args, "--width-in", kMinWidthIn, kMaxWidthIn, "inches", options.widthIn, &error);
    const std::optional<double> font = width ? sizeOption(args, "--font-pt", kMinFontPt, kMaxFontPt,
                                                          "points", options.fontPt, &error)
                                             : std::nullopt;
    if (!width || !font) {
        return args.usageError(error);
    }
    options.widthIn = *width;
    options.fontPt = *font;
    if (args.has("--params") && !isTraceFolder(dir)) {
        return args.usageError("--params: only for a folder of a DDP job's traces");
    }
    try {
        if (isTraceFolder(dir)) {
            return traceReport(dir, out, args.value("--params"), options);
        }
        // Idempotent: the report always reflects the directory as it is. Only a terminal sees the
        // progress; a log gets the files written.
        const bool live = isLiveTerminal(stderr);
        ProgressLine line(stderr, live, "ingested");
        const store::OpenedResults opened =
            store::openResults(dir, db, [&](int done, int total, const QString& id) {
                if (live) {
                    line.update(done, total, id);
                }
            });
        line.finish();
        if (!opened.note.isEmpty()) {
            printError(opened.note);
        }
        store::Database& database = *opened.db;
        const report::ReportData data = report::loadReportData(database, QDir(dir).canonicalPath());
        for (const QString& f : widgets::writeReport(database, data, out, options)) {
            std::fprintf(stderr, "wrote %s\n", qPrintable(f));
        }
        return Ok;
    } catch (const std::exception& e) {
        return badInput(e);
    }
}

} // namespace commprof::cli
