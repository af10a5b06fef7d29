// SPDX-License-Identifier: GPL-3.0-or-later
// commprof trace reduce, and `trace summarize --launcher slurm`, which runs it as the tasks of
// one Slurm job array and reads their reductions back for the merge.

#include "cli_common.h"
#include "trace_args.h"

#include "files/safe_file.h"
#include "runner/slurm_reductions.h"
#include "trace/rank_reduction.h"
#include "trace/reduction_json.h"
#include "trace/trace_reader.h"

#include <QCoreApplication>
#include <QDir>
#include <QTemporaryDir>

#include <memory>

namespace commprof::cli {
namespace {

bool sameSpan(const std::optional<trace::Span>& a, const std::optional<trace::Span>& b) {
    return a.has_value() == b.has_value() && (!a || (a->start == b->start && a->end == b->end));
}

// Task i's file, checked against what it was asked to reduce: a reduction of another file, or
// under another window, would merge into a job that no local run gives.
trace::LoadedReduction readTask(const TraceArgs& a, const std::string& file,
                                const runner::SlurmReduceTask& task, std::size_t i) {
    trace::LoadedReduction out;
    try {
        trace::ReducedFile r = trace::readReductionFile(task.reduced);
        if (r.source != file || !sameSpan(r.terms.window, a.window) || r.terms.withHta != a.hta) {
            throw trace::TraceError(task.reduced.toStdString() +
                                    ": a reduction of another file or under another --window or "
                                    "--hta (source '" +
                                    r.source + "')");
        }
        if (r.reduction) {
            out.reduction = std::move(r.reduction);
        } else {
            out.notATrace = true;
            out.error = r.notATrace;
        }
    } catch (const trace::TraceError& e) {
        out.error = QString("%1: array task %2: %3")
                        .arg(QString::fromStdString(file))
                        .arg(i)
                        .arg(QString::fromStdString(e.what()))
                        .toStdString();
    }
    return out;
}

} // namespace

std::vector<trace::LoadedReduction> reduceOnSlurm(const TraceArgs& a,
                                                  const std::vector<std::string>& files) {
    // The nodes read the work folder, so it must be on storage they share with this one: the
    // current folder (where Slurm itself starts a job's tasks) rather than this node's /tmp.
    std::unique_ptr<QTemporaryDir> temporary;
    QString workDir = a.reducedDir;
    if (workDir.isEmpty()) {
        temporary =
            std::make_unique<QTemporaryDir>(QDir::current().filePath("commprof-reduce-XXXXXX"));
        if (!temporary->isValid()) {
            throw trace::TraceError("cannot make a work folder in " +
                                    QDir::currentPath().toStdString() + ": " +
                                    temporary->errorString().toStdString());
        }
        workDir = temporary->path();
    }
    runner::SlurmReduceRequest request;
    request.files = files;
    request.program = QCoreApplication::applicationFilePath();
    request.reduceArgs = a.reduceFlags;
    request.workDir = QDir(workDir).absolutePath();
    request.partition = a.partition;
    request.env = QProcessEnvironment::systemEnvironment();
    const runner::SlurmReduceResult job = runner::reduceOnSlurm(request);
    if (!job.problem.isEmpty()) {
        throw trace::TraceError(job.problem.toStdString());
    }
    std::vector<trace::LoadedReduction> out;
    QStringList failures;
    for (std::size_t i = 0; i < files.size(); ++i) {
        if (!job.tasks[i].failure.isEmpty()) {
            failures << job.tasks[i].failure;
            continue;
        }
        out.push_back(readTask(a, files[i], job.tasks[i], i));
        if (!out.back().reduction && !out.back().notATrace) {
            failures << QString::fromStdString(out.back().error);
        }
    }
    if (!failures.isEmpty()) {
        if (temporary) {
            temporary->setAutoRemove(false); // what the tasks left says why they failed
        }
        throw trace::TraceError(QString("slurm job %1: %2 of %3 task(s) failed, nothing merged "
                                        "(their files are in %4):\n  %5")
                                    .arg(job.jobId)
                                    .arg(failures.size())
                                    .arg(files.size())
                                    .arg(request.workDir, failures.join("\n  "))
                                    .toStdString());
    }
    return out;
}

int traceReduceCommand(const Args& args) {
    return guarded(args, [](const TraceArgs& a) {
        trace::ReducedFile file;
        file.source = a.paths.first().toStdString();
        file.terms = {a.window, a.hta};
        try {
            file.reduction =
                trace::reduceTrace(trace::readTraceFile(file.source, a.read), a.window, a.hta);
        } catch (const trace::NotATraceError& e) {
            // Not a failure: a job's folder holds rank files beside its traces, and its summary
            // skips them as the local one does.
            file.notATrace = e.what();
            printError(QString("note: %1 (recorded as such in %2)")
                           .arg(QString::fromStdString(e.what()), a.out));
        }
        if (const QString e = files::writeAtomically(a.out, trace::reductionDocument(file));
            !e.isEmpty()) {
            throw trace::TraceError(e.toStdString());
        }
        return int(Ok);
    });
}

} // namespace commprof::cli
