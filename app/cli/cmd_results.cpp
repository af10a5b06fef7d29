// SPDX-License-Identifier: GPL-3.0-or-later
// commprof ingest and cells: a results folder into SQLite, and a row per cell from it.

#include "cli_common.h"
#include "terminal_progress.h"

#include "report/cells_table.h"
#include "report/sweep_text.h"
#include "store/ingest.h"
#include "store/open_results.h"
#include "store/queries.h"
#include "store/sweep_rows.h"

#include <QDir>
#include <QJsonArray>

#include <cstdio>

namespace commprof::cli {
namespace {

struct ResultsArgs {
    QString dir;
    QString db; // DIR/results.sqlite unless --db names another
    Format format = Format::Table;
};

ResultsArgs resultsArgs(const Args& args) {
    const QString dir = args.operands().first();
    return {dir, args.value("--db", store::defaultDbPath(dir)), formatOf(args)};
}

// Under a cell's line: a sweep's fits, or a DDP cell's all-reduce against its sweep.
QString sweepLines(store::Database& db, const store::CellRow& r) {
    QString out;
    if (r.isSweep()) {
        for (const store::StoredSweep& s : store::sweeps(db, r.key)) {
            out +=
                QString("    %1: %2\n")
                    .arg(s.series.kind,
                         !s.series.unsupported.isEmpty() ? "not measured: " + s.series.unsupported
                         : s.fit.refused
                             ? "fit refused: " + s.fit.reason
                             : QString("alpha %1 us, 1/beta %2 GB/s, R^2 %3 over %4 sizes")
                                   .arg(s.fit.alphaUs, 0, 'f', 1)
                                   .arg(s.fit.asymptoticGBps(), 0, 'f', 3)
                                   .arg(s.fit.r2, 0, 'f', 3)
                                   .arg(s.fit.sizes));
        }
        return out;
    }
    const auto p = store::prediction(db, r.key);
    if (p && p->prediction) {
        const analysis::DdpPrediction& d = *p->prediction;
        out += QString("    all-reduce per step: predicted %1 ms from %2, measured %3 ms (range "
                       "%4..%5): %6\n")
                   .arg(d.predictedUsPerStep / 1000.0, 0, 'f', 2)
                   .arg(p->sweepCell)
                   .arg(d.measuredUsPerStep / 1000.0, 0, 'f', 2)
                   .arg(d.measuredMinUs / 1000.0, 0, 'f', 2)
                   .arg(d.measuredMaxUs / 1000.0, 0, 'f', 2)
                   .arg(report::spreadVerdict(d));
    } else if (p) {
        out += "    all-reduce not predicted: " + p->note + "\n";
    }
    return out;
}

} // namespace

int ingestCommand(const Args& args) {
    const ResultsArgs a = resultsArgs(args);
    try {
        ProgressLine line(stderr, isLiveTerminal(stderr), "ingested");
        const store::IngestSummary s =
            store::ingest(a.dir, a.db, [&line](int done, int total, const QString& id) {
                line.update(done, total, id);
            });
        line.finish();
        std::fprintf(stderr,
                     "%d cells: %d complete, %d incomplete, %d failed, %d skipped_infeasible "
                     "(%d read, %d unchanged, %d removed) -> %s\n",
                     s.cells, s.complete, s.incomplete, s.failed, s.skippedInfeasible, s.read,
                     s.cells - s.read, s.removed, qPrintable(a.db));
        return Ok;
    } catch (const store::StoreError& e) {
        return badInput(e);
    }
}

int cellsCommand(const Args& args) {
    const ResultsArgs a = resultsArgs(args);
    try {
        // Brought up to date with the files first: a database never hides newer files.
        const store::OpenedResults opened = store::openResults(a.dir, a.db);
        if (!opened.note.isEmpty()) {
            printError(opened.note);
        }
        store::Database& db = *opened.db;
        const auto rows = store::cells(db, QDir(a.dir).canonicalPath());
        if (a.format == Format::Json) {
            QJsonArray arr;
            for (const auto& r : rows) {
                QJsonObject cell = store::toJson(r);
                report::addSweepFigures(db, r.key, r.isSweep(), cell);
                arr.append(cell);
            }
            printJson(QJsonObject{{"cells", arr}});
        } else if (a.format == Format::Csv) {
            printText(report::cellsCsv(rows, report::predictionsOf(db, rows)));
        } else {
            QString text;
            for (const auto& r : rows) {
                text +=
                    QString("%1 %2 ws%3 step %4 ms comm %5 ms%6\n")
                        .arg(r.id, -32)
                        .arg(r.status, -18)
                        .arg(r.worldSize)
                        .arg(r.stepMs ? QString::number(*r.stepMs, 'f', 2) : QString("-"))
                        .arg(r.traceCommMs ? QString::number(*r.traceCommMs, 'f', 2) : QString("-"))
                        .arg(r.reasons.isEmpty() ? QString() : "  (" + r.reasons.join("; ") + ")");
                text += sweepLines(db, r);
            }
            printText(text);
        }
        return Ok;
    } catch (const store::StoreError& e) {
        return badInput(e);
    }
}

} // namespace commprof::cli
