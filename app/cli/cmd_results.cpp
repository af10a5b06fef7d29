// commprof ingest DIR [--db FILE]; commprof cells DIR [--db FILE] [--format table|json|csv]

#include "cli_common.h"
#include "terminal_progress.h"

#include "report/cells_table.h"
#include "store/ingest.h"
#include "store/queries.h"
#include "store/schema.h"
#include "store/sweep_rows.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>

#include <cstdio>

namespace commprof::cli {
namespace {

struct ResultsArgs {
    QString dir;
    QString db;
    Format format = Format::Table;
};

bool parseResultsArgs(const QStringList& args, ResultsArgs& out) {
    for (int i = 0; i < args.size(); ++i) {
        if (args[i] == "--db" && i + 1 < args.size()) {
            out.db = args[++i];
        } else if (args[i] == "--json") {
            out.format = Format::Json;
        } else if (args[i] == "--csv") {
            out.format = Format::Csv;
        } else if (args[i] == "--format" && i + 1 < args.size()) {
            const auto f = parseFormat(args[++i]);
            if (!f) {
                return false;
            }
            out.format = *f;
        } else if (args[i].startsWith("--") || !out.dir.isEmpty()) {
            return false;
        } else {
            out.dir = args[i];
        }
    }
    if (out.db.isEmpty() && !out.dir.isEmpty()) {
        out.db = store::defaultDbPath(out.dir);
    }
    return !out.dir.isEmpty();
}

} // namespace

int ingestCommand(const QStringList& args) {
    ResultsArgs a;
    if (!parseResultsArgs(args, a)) {
        return usage("commprof ingest DIR [--db FILE]");
    }
    try {
        ProgressLine line(stderr, isLiveTerminal(stderr), "ingested");
        const store::IngestSummary s =
            store::ingest(a.dir, a.db, [&line](int done, int total, const QString& id) {
                line.update(done, total, id);
            });
        line.finish();
        std::fprintf(
            stderr,
            "%d cells: %d complete, %d incomplete, %d failed, %d skipped_infeasible -> %s\n",
            s.cells, s.complete, s.incomplete, s.failed, s.skippedInfeasible, qPrintable(a.db));
        return Ok;
    } catch (const store::StoreError& e) {
        printError(QString::fromStdString(e.what()));
        return BadInput;
    }
}

int cellsCommand(const QStringList& args) {
    ResultsArgs a;
    if (!parseResultsArgs(args, a)) {
        return usage("commprof cells DIR [--db FILE] [--format table|json|csv]");
    }
    try {
        if (!QFile::exists(a.db)) {
            store::ingest(a.dir, a.db);
        }
        store::Database db(a.db);
        store::migrate(db); // a database of an earlier build gains the newer tables
        const auto rows = store::cells(db, QDir(a.dir).canonicalPath());
        if (a.format == Format::Json) {
            QJsonArray arr;
            for (const auto& r : rows) {
                QJsonObject cell = store::toJson(r);
                store::addSweepFigures(db, r.key, r.isSweep(), cell);
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
            }
            printText(text);
        }
        return Ok;
    } catch (const store::StoreError& e) {
        printError(QString::fromStdString(e.what()));
        return BadInput;
    }
}

} // namespace commprof::cli
