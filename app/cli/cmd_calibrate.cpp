// SPDX-License-Identifier: GPL-3.0-or-later
// commprof calibrate: predicted against measured host memory, and a refitted baseline; for a
// TorchScript module (FILE.pt), its activation term measured.

#include "cli_common.h"

#include "feasibility/calibration.h"
#include "feasibility/machine_profile.h"
#include "store/open_results.h"
#include "store/queries.h"

#include <QDir>
#include <QFile>

namespace commprof::cli {

int calibrateCommand(const Args& args) {
    const QString dir = args.operands().first();
    if (dir.endsWith(".pt")) {
        return calibrateActivations(args, dir);
    }
    if (args.has("--batch-size")) {
        return args.usageError("--batch-size is for a TorchScript FILE.pt");
    }
    const QString profilePath = args.value("--profile");
    const QString writePath = args.value("--write-profile");
    feasibility::Coefficients k;
    try {
        if (!profilePath.isEmpty()) {
            k = feasibility::loadProfile(profilePath).coefficients;
        }
    } catch (const matrix::MatrixError& e) {
        return badInput(e);
    }
    // Complete as ingest judged it (store/ingest.cpp), the store brought up to date first.
    QSet<QString> complete;
    try {
        const store::OpenedResults opened = store::openResults(dir, store::defaultDbPath(dir));
        if (!opened.note.isEmpty()) {
            printError(opened.note);
        }
        for (const store::CellRow& row : store::cells(*opened.db, QDir(dir).canonicalPath())) {
            if (row.complete()) {
                complete.insert(row.id);
            }
        }
    } catch (const store::StoreError& e) {
        return badInput(e);
    }
    const feasibility::Calibration c = feasibility::calibrate(dir, k, complete);
    if (c.cells.empty()) {
        return notFine(dir + ": no complete cells to calibrate against");
    }
    if (!writePath.isEmpty()) {
        QFile f(writePath);
        if (!f.open(QIODevice::WriteOnly)) {
            return badInput(writePath + ": cannot write");
        }
        f.write(QString("# refitted by commprof calibrate from %1 (%2 complete cells)\nname: "
                        "refit\ncoefficients:\n  process_baseline_mib: %3\n")
                    .arg(dir)
                    .arg(c.cells.size())
                    .arg(c.baselineRefit / (1024.0 * 1024.0), 0, 'f', 1)
                    .toUtf8());
    }
    if (args.has("--json")) {
        printJson(feasibility::toJson(c));
    } else {
        QString text;
        for (const auto& cell : c.cells) {
            text += QString("%1  predicted %2 MiB/rank, measured %3 MiB/rank, error %4 %\n")
                        .arg(cell.cellId, -32)
                        .arg(cell.predictedHostPerRank / 1048576.0, 8, 'f', 1)
                        .arg(cell.measuredHostPerRank / 1048576.0, 8, 'f', 1)
                        .arg(cell.hostErrorFraction() * 100.0, 6, 'f', 1);
        }
        text += QString("process baseline: %1 MiB now, %2 MiB refitted%3\n")
                    .arg(c.baselineBefore / 1048576.0, 0, 'f', 1)
                    .arg(c.baselineRefit / 1048576.0, 0, 'f', 1)
                    .arg(writePath.isEmpty() ? QString(" (write it with --write-profile FILE)")
                                             : " -> " + writePath);
        printText(text);
    }
    return c.stillInfeasibleAfterRefit.empty() ? Ok : NotFine;
}

} // namespace commprof::cli
