// commprof ingest DIR [--db FILE]; commprof cells DIR [--db FILE] (--json | --csv)

#include "cli_common.h"

#include "report/cells_table.h"
#include "store/ingest.h"
#include "store/queries.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>

#include <cstdio>

namespace commprof::cli {
namespace {

struct ResultsArgs {
    QString dir;
    QString db;
    bool json = false;
    bool csv = false;
};

bool parseResultsArgs(const QStringList& args, ResultsArgs& out) {
    for (int i = 0; i < args.size(); ++i) {
        if (args[i] == "--db" && i + 1 < args.size()) {
            out.db = args[++i];
        } else if (args[i] == "--json") {
            out.json = true;
        } else if (args[i] == "--csv") {
            out.csv = true;
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
        const store::IngestSummary s =
            store::ingest(a.dir, a.db, [](int done, int total, const QString& id) {
                std::fprintf(stderr, "ingested %d/%d %s\n", done, total, qPrintable(id));
            });
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
        return usage("commprof cells DIR [--db FILE] [--json | --csv]");
    }
    try {
        if (!QFile::exists(a.db)) {
            store::ingest(a.dir, a.db);
        }
        store::Database db(a.db);
        const auto rows = store::cells(db, QDir(a.dir).canonicalPath());
        if (a.json) {
            QJsonArray arr;
            for (const auto& r : rows) {
                arr.append(store::toJson(r));
            }
            printJson(QJsonObject{{"cells", arr}});
        } else if (a.csv) {
            printText(report::cellsCsv(rows));
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
