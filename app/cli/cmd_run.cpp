// commprof run MATRIX.yaml --out DIR [--resume] [--only CELL_ID] [--json-progress] [--profile F]

#include "cli_common.h"

#include "runner/rank_program.h"

#include "runner/matrix_runner.h"

#include <QJsonDocument>
#include <QMap>

#include <csignal>
#include <cstdio>
#include <unistd.h>

namespace commprof::cli {
namespace {

runner::MatrixRunner* gRunner = nullptr;

void onSignal(int) {
    // Ctrl-C: end the running cell's ranks cleanly; the event loop does the rest.
    if (gRunner) {
        QMetaObject::invokeMethod(gRunner, &runner::MatrixRunner::stop, Qt::QueuedConnection);
    }
}

void emitLine(const QJsonObject& o) {
    const QByteArray line = QJsonDocument(o).toJson(QJsonDocument::Compact);
    std::fwrite(line.constData(), 1, std::size_t(line.size()), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
}

} // namespace

int runCommand(const QStringList& args) {
    const QString use = "commprof run MATRIX.yaml --out DIR [--resume] [--only CELL_ID] "
                        "[--json-progress] [--profile FILE]";
    QString path;
    runner::RunOptions options;
    feasibility::PlanOptions planOptions;
    bool jsonProgress = false;
    for (int i = 0; i < args.size(); ++i) {
        const QString& a = args[i];
        if (a == "--out" && i + 1 < args.size()) {
            options.outDir = args[++i];
        } else if (a == "--resume") {
            options.resume = true;
        } else if (a == "--only" && i + 1 < args.size()) {
            options.onlyCell = args[++i];
        } else if (a == "--profile" && i + 1 < args.size()) {
            planOptions.profilePath = args[++i];
        } else if (a == "--json-progress") {
            jsonProgress = true;
        } else if (a.startsWith("--") || !path.isEmpty()) {
            return usage(use);
        } else {
            path = a;
        }
    }
    if (path.isEmpty() || options.outDir.isEmpty()) {
        return usage(use);
    }
    options.rankProgram = runner::defaultRankProgram();
    feasibility::Plan plan;
    try {
        plan = feasibility::makePlan(path, planOptions);
    } catch (const matrix::MatrixError& e) {
        printError(QString::fromStdString(e.what()));
        return BadInput;
    }
    if (!options.onlyCell.isEmpty() &&
        std::none_of(plan.cells.begin(), plan.cells.end(),
                     [&](const auto& pc) { return pc.cell.id == options.onlyCell; })) {
        printError(QString("%1: no cell '%2' in this matrix").arg(path, options.onlyCell));
        return BadInput;
    }

    runner::MatrixRunner run(plan, options);
    gRunner = &run;
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
    const bool tty = ::isatty(STDERR_FILENO);
    QMap<QString, QMap<int, int>> iterations; // cell -> rank -> last iteration
    QObject::connect(&run, &runner::MatrixRunner::cellStateChanged,
                     [&](const QString& id, runner::CellState s, const QString& detail) {
                         if (jsonProgress) {
                             emitLine({{"event", "cell"},
                                       {"id", id},
                                       {"state", runner::toString(s)},
                                       {"detail", detail}});
                         }
                         std::fprintf(stderr, "%s%-34s %s %s\n", tty ? "\r\033[K" : "",
                                      qPrintable(id), runner::toString(s), qPrintable(detail));
                     });
    QObject::connect(&run, &runner::MatrixRunner::rankProgress,
                     [&](const QString& id, int rank, const QJsonObject& e) {
                         if (jsonProgress) {
                             QJsonObject o = e;
                             o["cell"] = id;
                             emitLine(o);
                         }
                         if (tty && e["event"].toString() == "iteration") {
                             iterations[id][rank] = e["iter"].toInt() + 1;
                             const int of = std::max(1, e["of"].toInt());
                             int done = 0;
                             for (int v : iterations[id]) {
                                 done += v;
                             }
                             const int ranks = iterations[id].size();
                             const int width = 30;
                             const int filled = width * done / (of * std::max(1, ranks));
                             std::fprintf(stderr, "\r\033[K%-34s [%s%s] %d/%d  %.1f ms",
                                          qPrintable(id), QByteArray(filled, '#').constData(),
                                          QByteArray(width - filled, '.').constData(),
                                          iterations[id][rank], of, e["step_ms"].toDouble());
                         }
                     });
    const runner::RunSummary s = run.runBlocking();
    gRunner = nullptr;
    std::fprintf(
        stderr,
        "%d complete, %d failed, %d skipped_infeasible, %d already complete%s; results in %s\n",
        s.complete, s.failed, s.skippedInfeasible, s.resumed, s.stopped ? ", stopped early" : "",
        qPrintable(options.outDir));
    return s.failed > 0 || s.stopped ? NotFine : Ok;
}

} // namespace commprof::cli
