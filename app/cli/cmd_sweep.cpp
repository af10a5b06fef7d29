// SPDX-License-Identifier: GPL-3.0-or-later
// commprof sweep run and sweep summarize: the collective sweep of commprof-rank --sweep over
// loopback, and its figures: per kind and size the slowest rank's median time, nccl-tests' algbw
// and busbw, and the alpha-beta fit or the reason it was refused.

#include "cli_common.h"

#include "analysis/collective_sweep.h"
#include "analysis/ddp_prediction.h"
#include "inputs/sweep_files.h"
#include "report/sweep_text.h"
#include "results/cell_files.h"
#include "results/json_kind.h"
#include "runner/rank_pool.h"
#include "runner/rank_program.h"

#include <QDir>
#include <QJsonArray>
#include <QThread>

namespace commprof::cli {
namespace {

QString seriesText(const analysis::SweepSeries& s) {
    QString out = QString("%1 %2 at world size %3\n").arg(s.layer, s.kind).arg(s.worldSize);
    if (!s.unsupported.isEmpty()) {
        return out + "  not measured: " + s.unsupported + "\n";
    }
    out += QString("  %1 %2 %3 %4 %5\n")
               .arg("bytes", 12)
               .arg("time_us", 12)
               .arg("algbw_GB/s", 11)
               .arg("busbw_GB/s", 11)
               .arg("slowest", 8);
    for (const auto& p : s.points) {
        out += QString("  %1 %2 %3 %4 %5\n")
                   .arg(p.bytes, 12, 'f', 0)
                   .arg(p.slowestUs, 12, 'f', 1)
                   .arg(p.algbwGBps, 11, 'f', 4)
                   .arg(p.busbwGBps ? QString::number(*p.busbwGBps, 'f', 4) : QString("n/a"), 11)
                   .arg(QString("rank %1").arg(p.slowestRank), 8);
    }
    const auto fit = analysis::fitSeries(s);
    if (!fit.note.isEmpty()) {
        out += "  " + fit.note + "\n";
    }
    out += fit.refused
               ? "  fit refused: " + fit.reason + "\n"
               : QString("  fit: alpha %1 us, beta %2 us/B (%3 GB/s), R^2 %4 over %5 sizes, "
                         "%6..%7 B (%8)\n")
                     .arg(fit.alphaUs, 0, 'f', 1)
                     .arg(fit.betaUsPerByte, 0, 'g', 4)
                     .arg(fit.asymptoticGBps(), 0, 'f', 3)
                     .arg(fit.r2, 0, 'f', 3)
                     .arg(fit.sizes)
                     .arg(fit.fromBytes, 0, 'f', 0)
                     .arg(fit.toBytes, 0, 'f', 0)
                     .arg(fit.method);
    return out;
}

int summarize(const QString& dir, bool json, const QString& ddpCell = {}) {
    if (!QDir(dir).exists()) {
        return badInput(dir + ": no such directory");
    }
    QStringList problems;
    const auto series = inputs::readSweep(dir, &problems);
    if (series.empty()) {
        return badInput(dir + ": no sweep_rank*.json files" +
                        (problems.isEmpty() ? QString() : ": " + problems.join("; ")));
    }
    std::optional<analysis::DdpPrediction> prediction;
    if (!ddpCell.isEmpty()) {
        QString problem;
        const results::CellFiles files = results::readCellDir(ddpCell);
        const analysis::CellMetrics m = analysis::analyzeCell(files);
        const int world = int(m.ranks.size());
        const QString notForHook = analysis::notPredictedForHook(
            files.cell["config"].toObject()["hook"].toString("allreduce"));
        const analysis::SweepSeries* allReduce = nullptr;
        for (const auto& s : series) {
            if (s.kind == "all_reduce" && s.worldSize == world) {
                allReduce = &s;
            }
        }
        if (!notForHook.isEmpty()) {
            problem = ddpCell + ": " + notForHook;
        } else if (!allReduce) {
            problem =
                QString("%1: no all_reduce sweep at its world size %2").arg(ddpCell).arg(world);
        } else {
            QString why;
            // The cell ran on this host: loopback ranks of one machine share its cores.
            prediction =
                analysis::predictDdp(m.ranks, allReduce->points, analysis::fitSeries(*allReduce),
                                     QThread::idealThreadCount(), &why);
            if (!prediction) {
                problem = ddpCell + ": " + why;
            }
        }
        if (!problem.isEmpty()) {
            problems << problem;
        }
    }
    if (json) {
        const QJsonArray all = results::jsonArray(
            series, [](const auto& s) { return report::toJson(s, analysis::fitSeries(s)); });
        QJsonObject doc{
            {"dir", dir}, {"series", all}, {"problems", QJsonArray::fromStringList(problems)}};
        if (prediction) {
            doc["ddp"] = report::toJson(*prediction);
        }
        printJson(doc);
    } else {
        for (const auto& s : series) {
            printText(seriesText(s));
        }
        if (prediction) {
            printText(report::describe(*prediction));
        }
        for (const QString& p : problems) {
            printError(p);
        }
    }
    return problems.isEmpty() ? Ok : NotFine;
}

} // namespace

int sweepRunCommand(const Args& args) {
    runner::PoolSpec spec;
    spec.program = runner::defaultRankProgram();
    if (args.has("--world-size")) {
        bool ok = false;
        spec.worldSize = args.value("--world-size").toInt(&ok);
        if (!ok || spec.worldSize < 1 || spec.worldSize > 64) {
            return args.usageError(
                QString("--world-size: expected 1..64, got '%1'").arg(args.value("--world-size")));
        }
    }
    const QString out = args.value("--out");
    const QString kinds = args.value("--kinds", "all_reduce,all_gather,reduce_scatter,broadcast");
    QStringList rankArgs;
    // commprof-rank checks the values and names its own flag in any error.
    for (const auto& [flag, rankFlag] :
         {std::pair{"--max-bytes", "--sweep-max-bytes"}, std::pair{"--iters", "--sweep-iters"},
          std::pair{"--warmup", "--sweep-warmup"}}) {
        if (args.has(flag)) {
            rankArgs << rankFlag << args.value(flag);
        }
    }
    if (!QDir().mkpath(out)) {
        return badInput(out + ": cannot create");
    }
    spec.args = QStringList{"--sweep", kinds, "--threads", "1", "--out", out} + rankArgs;
    spec.workDir = out;
    spec.deadline = QDeadlineTimer(qint64(3600) * 1000);
    runner::RankPool pool;
    const runner::PoolOutcome outcome = pool.runBlocking(spec);
    if (!outcome.success) {
        QString why = outcome.reason;
        for (const auto& r : outcome.ranks) {
            if (r.exitCode != 0) {
                why += QString("\nrank %1 exit %2: %3")
                           .arg(r.rank)
                           .arg(r.exitCode)
                           .arg(r.stderrTail.trimmed());
            }
        }
        return notFine("sweep failed: " + why);
    }
    return summarize(out, false);
}

int sweepSummarizeCommand(const Args& args) {
    return summarize(args.operands().first(), args.has("--json"), args.value("--ddp"));
}

} // namespace commprof::cli
