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

namespace commprof::cli {

int reportCommand(const Args& args) {
    const QString dir = args.operands().first();
    const QString out = args.value("--out");
    const QString db = args.value("--db", store::defaultDbPath(dir));
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
        for (const QString& f : widgets::writeReport(database, data, out)) {
            std::fprintf(stderr, "wrote %s\n", qPrintable(f));
        }
        return Ok;
    } catch (const std::exception& e) {
        printError(QString::fromStdString(e.what()));
        return BadInput;
    }
}

} // namespace commprof::cli
