// SPDX-License-Identifier: GPL-3.0-or-later
#include "ddp_job_files.h"

#include "inputs/ddp_params_file.h"
#include "trace/trace_error.h"
#include "trace/trace_job.h"
#include "trace/trace_windows.h"

#include <QDir>
#include <QFileInfo>

namespace commprof::inputs {

using analysis::DdpJob;
using analysis::DdpParams;

namespace {

std::vector<std::string> traceFiles(const QStringList& paths, std::vector<bool>* fromDirectory) {
    std::vector<std::string> files;
    for (const QString& p : paths) {
        if (QFileInfo(p).isDir()) {
            for (auto& f : trace::traceFilesIn(p.toStdString())) {
                files.push_back(std::move(f));
                fromDirectory->push_back(true);
            }
        } else {
            files.push_back(p.toStdString());
            fromDirectory->push_back(false);
        }
    }
    return files;
}

} // namespace

QString paramsBeside(const QStringList& paths) {
    if (paths.isEmpty()) {
        return {};
    }
    const QFileInfo first(paths.first());
    const QDir dir(first.isDir() ? first.filePath() : first.path());
    const QString candidate = dir.filePath(kParamsFileName);
    return QFileInfo(candidate).isFile() ? candidate : QString();
}

DdpJob readDdpJob(const QStringList& paths, const trace::ReadOptions& options,
                  const QString& paramsPath) {
    std::optional<DdpParams> params;
    const QString paramsFile = paramsPath.isEmpty() ? paramsBeside(paths) : paramsPath;
    if (!paramsFile.isEmpty()) {
        params = readDdpParams(paramsFile);
    }
    std::vector<bool> fromDirectory;
    const std::vector<std::string> files = traceFiles(paths, &fromDirectory);
    std::vector<std::optional<trace::DdpRankSteps>> read(files.size());
    const std::vector<trace::ReadOutcome> outcomes = trace::forEachTrace(
        files, options, 0, [&](std::size_t i, trace::Trace&& t) { read[i] = trace::ddpSteps(t); });
    // A tensorboard_trace_handler folder: one window per worker (trace/trace_windows.h).
    const trace::WindowChoice windows =
        trace::latestCompleteWindows(files, [&](std::size_t i) -> std::optional<int> {
            return read[i] ? std::optional<int>(int(read[i]->iterations.size())) : std::nullopt;
        });
    std::vector<trace::DdpRankSteps> steps;
    for (const std::size_t i : windows.keep) {
        if (outcomes[i].notATrace && fromDirectory[i]) {
            continue; // a job's folder may hold other JSON beside its traces (params.json)
        }
        if (!outcomes[i].error.empty()) {
            throw trace::TraceError(outcomes[i].error);
        }
        if (read[i]) {
            steps.push_back(std::move(*read[i]));
        }
    }
    if (steps.empty()) {
        throw trace::TraceError(paths.join(", ").toStdString() + ": no trace read");
    }
    if (!windows.note.empty()) {
        steps.front().notes.push_back(windows.note);
    }
    DdpJob job = analysis::ddpJobOf(std::move(steps));
    if (params) {
        job.params = std::move(params);
        job.paramsPath = paramsFile;
    }
    return job;
}

} // namespace commprof::inputs
