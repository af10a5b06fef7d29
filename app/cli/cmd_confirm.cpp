// SPDX-License-Identifier: GPL-3.0-or-later
// commprof confirm: a recorded job (commprof record) run again under its own settings (A) and
// under a candidate bucket cap and hook (B), alternating A B A B ..., the candidate applied by
// the same capture (it overrides DDP's constructor argument and register_comm_hook; the script is
// not edited). Each run's steady-state step is kept; the difference is paired, as runs drift, and
// printed beside what `trace whatif` predicts for the same change (analysis/confirmation.h).

#include "analysis/confirmation.h"
#include "analysis/ddp_job.h"
#include "capture_launch.h"
#include "cli_common.h"
#include "files/safe_file.h"
#include "inputs/confirmation_json.h"
#include "inputs/ddp_job_files.h"
#include "report/confirmation_text.h"
#include "results/hook_calibration.h"
#include "spec/comm_hooks.h"

#include <QDateTime>
#include <QDir>
#include <QJsonDocument>

#include <cmath>
#include <stdexcept>

namespace commprof::cli {
namespace {

constexpr int kMinRounds = 2; // a paired interval needs two pairs; 4 by default

// What one run of the job measured: its steady-state step, or why there is none (exit code).
struct RunOutcome {
    std::optional<double> stepMs;
    int exitCode = 0;
    QString error;
};

RunOutcome runOnce(const QStringList& command, int nproc, const QString& dir, int skip,
                   const std::optional<analysis::Setting>& candidate, bool json) {
    if (const QString err = prepareFreshFolder(dir); !err.isEmpty()) {
        return {std::nullopt, NotFine, err};
    }
    CaptureRun run;
    run.command = command;
    run.nproc = nproc;
    run.outDir = dir;
    run.env.insert("COMMPROF_CAPTURE_MODE", "time");
    run.stdoutToStderr = json;
    if (candidate) {
        run.env.insert("COMMPROF_CAPTURE_BUCKET_CAP_MB",
                       QString::number(candidate->bucketCapMb, 'g', 17));
        run.env.insert("COMMPROF_CAPTURE_HOOK", candidate->hook);
    }
    const CaptureRunResult ran = runWithCapture(run);
    if (!ran.failure.isEmpty()) {
        return {std::nullopt, NotFine, ran.failure};
    }
    const std::vector<RankCapture> captures = readCaptures(dir);
    QString why;
    const QString verdict = verdictOf(captures, &why);
    if (verdict != "timed") {
        return {std::nullopt, exitCodeOf(verdict), verdict + ": " + why};
    }
    std::vector<std::vector<double>> steps;
    for (const RankCapture& c : captures) {
        if (c.status == "timed") {
            steps.push_back(c.stepMs);
        }
    }
    RunOutcome out;
    out.stepMs = analysis::steadyStepMs(steps, skip);
    if (!out.stepMs) {
        out.exitCode = 6;
        out.error = QString("the job ran no more than %1 steps, all left out as warm-up").arg(skip);
    }
    return out;
}

// The recorded settings: rank 0's capture file of the record folder.
analysis::Setting recordedSetting(const QString& dir) {
    for (const RankCapture& c : readCaptures(dir)) {
        if (c.status == "recorded" && c.rank == 0) {
            return {c.json["bucket_cap_mb"].toDouble(25), c.json["hook"].toString("allreduce")};
        }
    }
    throw std::invalid_argument(
        (dir + ": not a folder that `commprof record` wrote (no capture/rank0.json recorded)")
            .toStdString());
}

} // namespace

int confirmCommand(const Args& args) {
    const QStringList operands = args.operands();
    const QString dir = operands.first();
    RecordFlags f;
    if (const QString err = parseRecordFlags(args, &f); !err.isEmpty()) {
        return args.usageError(err);
    }
    const QStringList command = operands.mid(1);
    if (command.isEmpty()) {
        return args.usageError("missing the command to run after --");
    }
    bool ok = false;
    const double cap = args.value("--bucket-cap-mb").toDouble(&ok);
    if (!ok || !(cap > 0) || !std::isfinite(cap)) {
        return args.usageError("--bucket-cap-mb: expected a number > 0, got '" +
                               args.value("--bucket-cap-mb") + "'");
    }
    int rounds = 4;
    if (const QString e = intFlag(args, "--rounds", kMinRounds, 1000, &rounds); !e.isEmpty()) {
        return args.usageError(e);
    }
    analysis::Confirmation c;
    try {
        c.recorded = recordedSetting(dir);
    } catch (const std::exception& e) {
        return badInput(QString("confirm: %1").arg(QString::fromLocal8Bit(e.what())));
    }
    c.candidate = {cap, args.value("--hook", c.recorded.hook)};
    if (!spec::findCommHook(c.candidate.hook.toStdString())) {
        return args.usageError("--hook: unknown hook '" + c.candidate.hook +
                               "' (allreduce, fp16_compress, bf16_compress)");
    }
    // The prediction first: a folder that cannot be replayed is said before minutes of runs.
    try {
        const analysis::DdpJob job =
            inputs::readDdpJob({dir}, trace::ReadOptions::fromEnvironment());
        const analysis::DdpStepGraph g = job.graph();
        QString why;
        const std::optional<results::HookCalibration> calibration =
            results::storedHookCalibration(&why);
        if (!why.isEmpty()) {
            printError("warning: this machine's hook calibration is not used: " + why);
        }
        c.predicted = analysis::predictDifference(g, job.params ? &*job.params : nullptr,
                                                  c.recorded, c.candidate, &why, calibration);
        c.predictionMissing = why;
    } catch (const std::exception& e) {
        c.predictionMissing = QString::fromLocal8Bit(e.what());
    }
    const QString work = QDir(dir).filePath(
        "confirm-" + QDateTime::currentDateTimeUtc().toString("yyyyMMdd-HHmmss"));
    for (int r = 1; r <= rounds; ++r) {
        for (const bool isB : {false, true}) {
            const QString runDir = QDir(work).filePath(QString("%1%2").arg(isB ? "b" : "a").arg(r));
            RunOutcome o;
            try {
                o = runOnce(command, f.nproc, runDir, f.skip,
                            isB ? std::optional<analysis::Setting>(c.candidate) : std::nullopt,
                            formatOf(args) == Format::Json);
            } catch (const std::exception& e) {
                o.exitCode = NotFine;
                o.error = QString::fromLocal8Bit(e.what());
            }
            if (!o.stepMs) {
                printError(
                    QString("confirm: round %1 %2: %3").arg(r).arg(isB ? "B" : "A", o.error));
                return o.exitCode ? o.exitCode : NotFine;
            }
            (isB ? c.bMs : c.aMs).push_back(*o.stepMs);
            printError(QString("confirm: round %1/%2 %3: %4 ms a step")
                           .arg(r)
                           .arg(rounds)
                           .arg(isB ? "B" : "A")
                           .arg(*o.stepMs, 0, 'f', 2));
        }
    }
    c.measured = analysis::pairedDifference(c.aMs, c.bMs, 0.9);
    const QJsonObject doc = inputs::toJson(c);
    const QString saved =
        files::writeAtomically(QDir(work).filePath("confirm.json"), QJsonDocument(doc).toJson());
    if (!saved.isEmpty()) {
        printError("confirm: " + saved);
    }
    if (formatOf(args) == Format::Json) {
        printJson(doc);
    } else {
        // describe() is trimmed for the workbench; a terminal's last line ends as lines do, or
        // the shell's prompt is written after it.
        printText(report::describe(c) + '\n');
    }
    return Ok;
}

} // namespace commprof::cli
