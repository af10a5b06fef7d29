// SPDX-License-Identifier: GPL-3.0-or-later
// commprof recommend: a bucket cap per group of cells, predicted from the sweep and the
// parameters' ready times, measured beside predicted (analysis/recommendation.h).

#include "analysis/cap_advice.h"
#include "analysis/recommendation.h"
#include "cli_common.h"
#include "inputs/matrix_cap.h"
#include "report/recommendation_text.h"
#include "results/results_folder.h"
#include "store/open_results.h"
#include "store/study_cells.h"

#include <QDir>

#include <cmath>

namespace commprof::cli {

int recommendCommand(const Args& args) {
    const QString dir = args.operands().first();
    // As `cells` refuses it, before the flags: no results folder, or a link in it.
    try {
        store::requireResultsFolder(dir);
    } catch (const store::StoreError& e) {
        return badInput(e);
    }
    analysis::CurrentCap current;
    if (args.has("--current-cap-mb")) {
        bool ok = false;
        const double v = args.value("--current-cap-mb").toDouble(&ok);
        if (!ok || !std::isfinite(v) || v <= 0 || v > 1024 * 1024) {
            return badInput(QString("--current-cap-mb: '%1' is not a bucket cap in MiB (a number "
                                    "above 0)")
                                .arg(args.value("--current-cap-mb")));
        }
        current.namedMb = v;
    }
    // The cap the matrix ran at, where it names one value; a run.json that is not there or
    // does not parse names none.
    current.matrixMb = inputs::matrixScalarCapMb(results::matrixOfRun(dir).yaml);
    analysis::Recommendations r;
    try {
        // From the store, brought up to date with the files first (or in memory, where the
        // folder cannot be written): the rank files are read by ingest alone.
        const store::OpenedResults opened = store::openResults(dir, store::defaultDbPath(dir));
        if (!opened.note.isEmpty()) {
            printError(opened.note);
        }
        r = analysis::recommend(store::studyCells(*opened.db, QDir(dir).canonicalPath()), current);
    } catch (const store::StoreError& e) {
        return badInput(e);
    }
    if (r.groups.empty()) {
        return badInput(dir + ": no complete DDP cell to recommend a bucket cap for");
    }
    if (args.has("--json")) {
        printJson(report::toJson(r));
    } else {
        // What to do first, one line per group; the numbers each rests on after.
        QStringList actions;
        for (const analysis::CapGroup& g : r.groups) {
            // Indented under no heading of its own: a group's heading is the table's.
            actions << "  " + report::groupLabel(g) + ": " + report::actionLine(g);
        }
        QStringList text{actions.join('\n') + '\n'};
        for (const analysis::CapGroup& g : r.groups) {
            text << report::describe(g);
        }
        if (!r.dropped.empty()) {
            text << report::describeDropped(r);
        }
        printText(text.join('\n'));
    }
    return r.ok() ? Ok : NotFine;
}

} // namespace commprof::cli
