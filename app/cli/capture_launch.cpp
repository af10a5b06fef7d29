// SPDX-License-Identifier: GPL-3.0-or-later
#include "capture_launch.h"

#include "files/safe_file.h"
#include "spec/mapped.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>

#include <algorithm>
#include <stdexcept>

namespace commprof::cli {
namespace {

constexpr qint64 kMaxCaptureBytes = 256LL * 1024 * 1024; // a huge model's parameter list

// The capture's two files from this program's resources into `dir`.
void extractCapture(const QString& dir) {
    for (const char* name : {"sitecustomize.py", "commprof_capture.py"}) {
        QFile in(QString(":/tools/capture/") + name);
        if (!in.open(QIODevice::ReadOnly)) {
            throw std::runtime_error("this build lacks its capture (tools/capture)");
        }
        const QString err = files::writeAtomically(QDir(dir).filePath(name), in.readAll());
        if (!err.isEmpty()) {
            throw std::runtime_error(err.toStdString());
        }
    }
}

QProcessEnvironment environmentFor(const CaptureRun& run, const QString& captureDir) {
    QProcessEnvironment env = run.env;
    const QString old = env.value("PYTHONPATH");
    env.insert("PYTHONPATH", captureDir + (old.isEmpty() ? "" : ":" + old));
    env.insert("COMMPROF_CAPTURE_DIR", QDir(run.outDir).absolutePath());
    return env;
}

} // namespace

QString intFlag(const Args& args, const char* flag, int low, int high, int* out) {
    if (!args.has(flag)) {
        return {};
    }
    bool ok = false;
    const int v = args.value(flag).toInt(&ok);
    if (!ok || v < low || v > high) {
        return QString("%1: expected a whole number from %2 to %3, got '%4'")
            .arg(flag)
            .arg(low)
            .arg(high)
            .arg(args.value(flag));
    }
    *out = v;
    return {};
}

QString parseRecordFlags(const Args& args, RecordFlags* out) {
    // The window starts at step 2 at the earliest: step 0 runs with one bucket and DDP
    // rebuilds its buckets during step 1 (docs/cli.md, `record`).
    for (const QString& err : {intFlag(args, "--skip", 2, 1000000, &out->skip),
                               intFlag(args, "--steps", 1, 10000, &out->steps),
                               intFlag(args, "--nproc", 1, 1024, &out->nproc)}) {
        if (!err.isEmpty()) {
            return err;
        }
    }
    if (args.operands().isEmpty()) {
        return "missing the command to run after --";
    }
    return {};
}

QString prepareFreshFolder(const QString& dir) {
    const QFileInfo info(dir);
    if (files::isLink(dir)) {
        return files::linkRefused(dir);
    }
    if (info.exists() && !info.isDir()) {
        return dir + ": exists and is not a folder";
    }
    if (info.isDir() &&
        !QDir(dir).isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System)) {
        return dir + ": the folder is not empty; give a new or empty one (nothing there is "
                     "replaced)";
    }
    return files::makeDirs(dir);
}

CaptureRunResult runWithCapture(const CaptureRun& run) {
    // The capture's files live as long as the ranks: Python reads them at each start-up.
    QTemporaryDir captureDir;
    if (!captureDir.isValid()) {
        throw std::runtime_error("cannot make a temporary folder: " +
                                 captureDir.errorString().toStdString());
    }
    extractCapture(captureDir.path());
    RankLaunch launch = run;
    launch.env = environmentFor(run, captureDir.path());
    return launchRanks(launch);
}

std::vector<RankCapture> readCaptures(const QString& dir) {
    std::vector<RankCapture> out;
    const QDir folder(QDir(dir).filePath("capture"));
    for (const QFileInfo& f : folder.entryInfoList({"rank*.json", "pid*.json"}, QDir::Files)) {
        const QString path = f.filePath();
        QJsonParseError pe{};
        const QJsonDocument doc = QJsonDocument::fromJson(
            files::readRegularFile(path, kMaxCaptureBytes, files::Links::Refuse), &pe);
        if (!doc.isObject() || doc["format"].toString() != "commprof-capture") {
            throw std::runtime_error(path.toStdString() + ": not a commprof capture file" +
                                     (pe.error ? ": " + pe.errorString().toStdString() : ""));
        }
        RankCapture c;
        c.file = path;
        c.json = doc.object();
        c.status = c.json["status"].toString();
        c.message = c.json["message"].toString();
        c.rank = c.json["rank"].isDouble() ? c.json["rank"].toInt() : -1;
        c.stepMs = spec::mapped<std::vector<double>>(
            c.json["step_ms"].toArray(), [](const QJsonValue& v) { return v.toDouble(); });
        out.push_back(std::move(c));
    }
    std::sort(out.begin(), out.end(), [](const RankCapture& a, const RankCapture& b) {
        return (a.rank < 0) != (b.rank < 0) ? a.rank >= 0 : a.rank < b.rank;
    });
    return out;
}

QString verdictOf(const std::vector<RankCapture>& captures, QString* why) {
    // A refusal on any rank is the job's: the order says which reason is told first.
    for (const char* refusal :
         {"several_ddp", "already_profiles", "capture_failed", "too_few_steps"}) {
        for (const RankCapture& c : captures) {
            if (c.status == refusal) {
                *why = c.message;
                return c.status;
            }
        }
    }
    for (const RankCapture& c : captures) {
        if (c.status == "recorded" || c.status == "timed") {
            return c.status;
        }
    }
    *why = captures.empty()
               ? QString("no Python process of the command loaded the capture (not a Python "
                         "program, or Python started with -E or -I, which ignore PYTHONPATH)")
               : QString("the command built no torch.nn.parallel.DistributedDataParallel in any "
                         "Python process it started");
    return "no_ddp";
}

int exitCodeOf(const QString& verdict) {
    static const QHash<QString, int> codes{{"recorded", 0},    {"timed", 0},
                                           {"no_ddp", 3},      {"already_profiles", 4},
                                           {"several_ddp", 5}, {"too_few_steps", 6}};
    return codes.value(verdict, 1);
}

} // namespace commprof::cli
