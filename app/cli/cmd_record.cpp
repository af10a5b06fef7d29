// SPDX-License-Identifier: GPL-3.0-or-later
// commprof record: a user's unmodified DDP training run with the capture loaded at Python
// start-up (capture_launch.h), leaving in DIR one trace per rank of N steps after K skipped ones,
// params.json (what `trace whatif DIR` and `trace ddp DIR` read without --params) and each
// process's capture file. A script it cannot capture runs on as it would without commprof; the
// exit code says why nothing was recorded (docs/cli.md).

#include "capture_launch.h"
#include "cli_common.h"
#include "files/safe_file.h"

#include <QDateTime>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace commprof::cli {
namespace {

QString summaryOf(const std::vector<RankCapture>& captures, const QString& dir) {
    const QJsonObject& r0 = captures.front().json;
    const auto ranks = std::ranges::count(captures, QString("recorded"), &RankCapture::status);
    const QJsonArray window = r0["window"].toArray();
    const QJsonObject buckets = r0["buckets"].toObject();
    double bytes = 0;
    for (const QJsonValue p : r0["params"].toArray()) {
        bytes += p["bytes"].toDouble();
    }
    return QString("record: steps %1-%2 of %3 rank(s) recorded into %4: %5 parameters "
                   "(%6 MiB) in %7 bucket(s), bucket_cap_mb %8, hook %9, %10, torch %11\n"
                   "next: commprof trace whatif %4\n")
        .arg(window.at(0).toInt())
        .arg(window.at(1).toInt())
        .arg(ranks)
        .arg(QDir::toNativeSeparators(dir))
        .arg(r0["params"].toArray().size())
        .arg(bytes / 1048576.0, 0, 'f', 2)
        .arg(buckets["sizes"].toArray().size())
        .arg(r0["bucket_cap_mb"].toDouble())
        .arg(r0["hook"].toString(), r0["backend"].toString(), r0["torch_version"].toString());
}

} // namespace

int recordCommand(const Args& args) {
    RecordFlags f;
    if (const QString err = parseRecordFlags(args, &f); !err.isEmpty()) {
        return args.usageError(err);
    }
    const QString dir = args.value(
        "--out", "commprof-record-" + QDateTime::currentDateTimeUtc().toString("yyyyMMdd-HHmmss"));
    if (const QString err = prepareFreshFolder(dir); !err.isEmpty()) {
        return badInput("record: " + err);
    }
    CaptureRun run;
    run.command = args.operands();
    run.nproc = f.nproc;
    run.outDir = dir;
    run.env.insert("COMMPROF_CAPTURE_MODE", "record");
    run.env.insert("COMMPROF_CAPTURE_SKIP", QString::number(f.skip));
    run.env.insert("COMMPROF_CAPTURE_STEPS", QString::number(f.steps));
    // The command as run, for `confirm` from the workbench (runner::RecordJob::confirmRequestFor).
    const QJsonArray words = QJsonArray::fromStringList(run.command);
    const QString madeCapture = files::makeDirs(QDir(dir).filePath("capture"));
    const QString saved =
        !madeCapture.isEmpty()
            ? madeCapture
            : files::writeAtomically(
                  QDir(dir).filePath("capture/command.json"),
                  QJsonDocument(QJsonObject{{"command", words},
                                            {"nproc", f.nproc},
                                            {"skip", f.skip},
                                            {"steps", f.steps},
                                            {"working_directory", QDir::currentPath()}})
                      .toJson());
    if (!saved.isEmpty()) {
        return notFine("record: " + saved);
    }
    CaptureRunResult ran;
    std::vector<RankCapture> captures;
    try {
        ran = runWithCapture(run);
        captures = readCaptures(dir);
    } catch (const std::exception& e) {
        return notFine(QString("record: %1").arg(QString::fromLocal8Bit(e.what())));
    }
    QString why;
    const QString verdict = verdictOf(captures, &why);
    if (!ran.failure.isEmpty()) {
        return notFine(QString("record: %1; what was captured stays in %2").arg(ran.failure, dir));
    }
    if (verdict != "recorded") {
        printError(QString("record: nothing recorded (%1): %2; the command ran as it would "
                           "without commprof")
                       .arg(verdict, why));
        return exitCodeOf(verdict);
    }
    printText(summaryOf(captures, dir));
    return Ok;
}

} // namespace commprof::cli
