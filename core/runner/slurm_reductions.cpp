// SPDX-License-Identifier: GPL-3.0-or-later
#include "slurm_reductions.h"

#include "files/safe_file.h"
#include "platform/slurm_cluster.h"
#include "runner/launcher_base.h"
#include "runner/slurm_jobs.h"
#include "runner/slurm_step.h"

#include <QDir>
#include <QFile>
#include <QProcess>

namespace commprof::runner {
namespace {

constexpr qint64 kMaxTaskOutputBytes = 8LL * 1024 * 1024;

QString reducedPath(const QString& workDir, std::size_t task) {
    return QDir(workDir).filePath(QString("reduced/%1.json").arg(task));
}

QString scriptPath(const QString& workDir) {
    return QDir(workDir).filePath("reduce_job.sh");
}

// What the task left in its output file (its stderr: commprof's error naming the file).
QString outputTail(const QString& workDir, const QString& jobId, std::size_t task) {
    const QString path = QDir(workDir).filePath(QString("slurm-%1_%2.out").arg(jobId).arg(task));
    try {
        const QString tail =
            tailText(files::readRegularFile(path, kMaxTaskOutputBytes, files::Links::Refuse));
        return tail.isEmpty() ? QString("its output %1 is empty").arg(path)
                              : QString("%1 ends: %2").arg(path, tail);
    } catch (const files::FileError& e) {
        return QString("no output: %1").arg(e.what());
    }
}

// "FAILED, exit code 2:0" as scontrol has the task; empty when it cannot say.
QString taskState(const platform::SlurmTools& tools, const QProcessEnvironment& env,
                  const QString& jobId, std::size_t task) {
    if (tools.scontrol.isEmpty()) {
        return {};
    }
    const platform::ToolResult t = platform::runTool(
        tools.scontrol, {"show", "job", "-o", QString("%1_%2").arg(jobId).arg(task)}, env);
    if (!t.ok()) {
        return {};
    }
    const QMap<QString, QString> r = platform::parseSlurmRecord(t.out.split('\n').value(0));
    QString state = r.value("JobState");
    if (!r.value("Reason").isEmpty() && r.value("Reason") != "None") {
        state += ", reason " + r.value("Reason");
    }
    if (!r.value("ExitCode").isEmpty()) {
        state += ", exit code " + r.value("ExitCode");
    }
    return state;
}

// The batch script of the job array: task i runs `PROGRAM trace reduce FILES[i] --out
// WORKDIR/reduced/i.json ARGS`.
QByteArray reduceScript(const SlurmReduceRequest& request) {
    QString s = "#!/bin/sh\n";
    if (!request.partition.isEmpty()) {
        s += "#SBATCH --partition=" + request.partition + "\n";
    }
    s += QString("#SBATCH --array=0-%1\n").arg(qsizetype(request.files.size()) - 1);
    s += "#SBATCH --ntasks=1\n";
    s += "# commprof trace summarize --launcher slurm: one array task per rank trace, each\n"
         "# reduced by `commprof trace reduce` to the file the summary then merges.\n"
         "# Submitted with sbatch --wait --parsable --job-name, --output and --chdir.\n"
         "case \"$SLURM_ARRAY_TASK_ID\" in\n";
    for (std::size_t i = 0; i < request.files.size(); ++i) {
        QStringList command{request.program, "trace",
                            "reduce",        QString::fromStdString(request.files[i]),
                            "--out",         reducedPath(request.workDir, i)};
        command << request.reduceArgs;
        for (QString& w : command) {
            w = shellQuote(w);
        }
        s += QString("%1) exec %2 ;;\n").arg(i).arg(command.join(' '));
    }
    s += "*) echo \"commprof: array task '$SLURM_ARRAY_TASK_ID' has no trace\" >&2; exit 1 ;;\n"
         "esac\n";
    return s.toUtf8();
}

} // namespace

SlurmReduceResult reduceOnSlurm(const SlurmReduceRequest& request) {
    SlurmReduceResult out;
    const auto refuse = [&out](const QString& problem) {
        out.problem = problem;
        return out;
    };
    const platform::SlurmTools tools = platform::findSlurmTools(request.env);
    if (tools.sbatch.isEmpty()) {
        return refuse("--launcher slurm needs Slurm's sbatch on PATH, and it is not there: "
                      "install Slurm's client commands (the slurm-client package; "
                      "packaging/bootstrap.sh installs slurm-wlm), or summarize here without "
                      "--launcher slurm");
    }
    if (request.files.empty()) {
        return refuse("no traces to reduce");
    }
    if (QString e = files::makeDirs(QDir(request.workDir).filePath("reduced")); !e.isEmpty()) {
        return refuse("cannot make the work folder: " + e);
    }
    // A task that fails must not leave an earlier job's reduction in its place.
    for (std::size_t i = 0; i < request.files.size(); ++i) {
        QFile::remove(reducedPath(request.workDir, i));
    }
    if (QString e = files::writeAtomically(scriptPath(request.workDir), reduceScript(request));
        !e.isEmpty()) {
        return refuse("cannot write the batch script: " + e);
    }
    // '%' starts a pattern in Slurm's file names; the folder's own ones stay literal.
    const QString output =
        QDir(QString(request.workDir).replace("%", "%%")).filePath("slurm-%A_%a.out");
    const QStringList args{"--wait",
                           "--parsable",
                           "--job-name=" + slurmJobName("trace_reduce"),
                           "--output=" + output,
                           "--chdir=" + QDir::currentPath(),
                           scriptPath(request.workDir)};
    QProcess sbatch;
    sbatch.setProcessEnvironment(request.env);
    sbatch.setStandardInputFile(QProcess::nullDevice());
    sbatch.start(tools.sbatch, args);
    if (!sbatch.waitForStarted(30000)) {
        return refuse(QString("cannot start %1: %2").arg(tools.sbatch, sbatch.errorString()));
    }
    sbatch.waitForFinished(-1); // the job's own time limits bound it
    const QByteArray said = sbatch.readAllStandardOutput();
    out.jobId = QString::fromUtf8(said.split('\n').value(0).trimmed()).section(';', 0, 0);
    if (out.jobId.isEmpty()) {
        return refuse(QString("sbatch %1 submitted no job (exit %2): %3")
                          .arg(args.join(' '))
                          .arg(sbatch.exitCode())
                          .arg(tailText(sbatch.readAllStandardError())));
    }
    for (std::size_t i = 0; i < request.files.size(); ++i) {
        SlurmReduceTask task;
        task.reduced = reducedPath(request.workDir, i);
        if (!QFile::exists(task.reduced)) {
            const QString state = taskState(tools, request.env, out.jobId, i);
            task.failure = QString("%1: array task %2 of slurm job %3 wrote no reduction%4; %5")
                               .arg(QString::fromStdString(request.files[i]))
                               .arg(i)
                               .arg(out.jobId)
                               .arg(state.isEmpty() ? QString() : " (" + state + ")")
                               .arg(outputTail(request.workDir, out.jobId, i));
        }
        out.tasks.push_back(task);
    }
    return out;
}

} // namespace commprof::runner
