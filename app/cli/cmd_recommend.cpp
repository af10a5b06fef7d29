// SPDX-License-Identifier: GPL-3.0-or-later
// commprof recommend: a bucket cap per group of cells, predicted from the sweep and the
// parameters' ready times, measured beside predicted (analysis/recommendation.h).

#include "analysis/recommendation.h"
#include "cli_common.h"
#include "results/cell_files.h"
#include "results/results_folder.h"

namespace commprof::cli {

int recommendCommand(const Args& args) {
    const QString dir = args.operands().first();
    const results::FolderCheck check = results::checkResultsFolder(dir);
    if (!check.ok) {
        printError(check.reason);
        return BadInput;
    }
    // As `cells` refuses it: through a link, a cell's files are somewhere else.
    if (const QString link = results::linkInFolder(dir); !link.isEmpty()) {
        printError(link);
        return BadInput;
    }
    const analysis::Recommendations r = analysis::recommend(results::readCells(dir));
    if (r.groups.empty()) {
        printError(dir + ": no complete DDP cell to recommend a bucket cap for");
        return BadInput;
    }
    if (args.has("--json")) {
        printJson(analysis::toJson(r));
    } else {
        QStringList text;
        for (const analysis::CapGroup& g : r.groups) {
            text << analysis::describe(g);
        }
        if (!r.dropped.empty()) {
            text << analysis::describeDropped(r);
        }
        printText(text.join('\n'));
    }
    return r.ok() ? Ok : NotFine;
}

} // namespace commprof::cli
