// SPDX-License-Identifier: GPL-3.0-or-later
// commprof report: the tables, LaTeX macros, fits and figures of a results folder.
// Figures come from the workbench's own plot code (widgets/result_plots), rendered offscreen.

#include "cli_common.h"
#include "terminal_progress.h"

#include "report_writer.h"
#include "store/open_results.h"

#include <QDir>
#include <QFile>

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

// The value of `flag` within [lo, hi], or `fallback` when not given; nullopt when it is no such
// number.
std::optional<double> numberIn(const Args& args, const char* flag, double lo, double hi,
                               double fallback) {
    if (!args.has(flag)) {
        return fallback;
    }
    bool ok = false;
    const double v = args.value(flag).toDouble(&ok);
    return ok && v >= lo && v <= hi ? std::optional<double>(v) : std::nullopt;
}

} // namespace

int reportCommand(const Args& args) {
    const QString dir = args.operands().first();
    const QString out = args.value("--out");
    const QString db = args.value("--db", store::defaultDbPath(dir));
    widgets::ExportOptions options;
    const std::optional<double> width =
        numberIn(args, "--width-in", kMinWidthIn, kMaxWidthIn, options.widthIn);
    if (!width) {
        return args.usageError(QString("--width-in: expected %1 to %2 inches, got '%3'")
                                   .arg(kMinWidthIn)
                                   .arg(kMaxWidthIn)
                                   .arg(args.value("--width-in")));
    }
    const std::optional<double> font =
        numberIn(args, "--font-pt", kMinFontPt, kMaxFontPt, options.fontPt);
    if (!font) {
        return args.usageError(QString("--font-pt: expected %1 to %2 points, got '%3'")
                                   .arg(kMinFontPt)
                                   .arg(kMaxFontPt)
                                   .arg(args.value("--font-pt")));
    }
    options.widthIn = *width;
    options.fontPt = *font;
    try {
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
        printError(QString::fromStdString(e.what()));
        return BadInput;
    }
}

} // namespace commprof::cli
