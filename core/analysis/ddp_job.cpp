// SPDX-License-Identifier: GPL-3.0-or-later
#include "ddp_job.h"

#include "files/safe_file.h"
#include "trace/trace_error.h"
#include "trace/trace_job.h"
#include "trace/trace_windows.h"

#include <QDir>
#include <QFileInfo>

#include <set>

namespace commprof::analysis {
namespace {

constexpr qint64 kMaxParamsBytes = 64LL * 1024 * 1024;

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

std::vector<const trace::DdpRankSteps*> DdpJob::pointers() const {
    std::vector<const trace::DdpRankSteps*> out;
    for (const auto& s : steps) {
        out.push_back(&s);
    }
    return out;
}

DdpStepGraph DdpJob::graph() const {
    return buildStepGraph(pointers(), ranks, params ? params->names() : QStringList{});
}

DdpParams readDdpParams(const QString& path) {
    QString error;
    std::optional<DdpParams> params;
    try {
        params = parseDdpParams(files::readRegularFile(path, kMaxParamsBytes, files::Links::Follow),
                                path, &error);
    } catch (const files::FileError& e) {
        throw trace::TraceError((path + ": " + e.detail).toStdString());
    }
    if (!params) {
        throw trace::TraceError(error.toStdString());
    }
    return std::move(*params);
}

DdpJob ddpJobOf(std::vector<trace::DdpRankSteps> steps, const std::vector<int>& rankNumbers) {
    DdpJob job;
    job.steps = std::move(steps);
    std::set<int> seen;
    for (std::size_t i = 0; i < job.steps.size(); ++i) {
        const trace::DdpRankSteps& s = job.steps[i];
        const trace::DdpRankSteps& first = job.steps.front();
        const std::size_t g0 = first.iterations.front().gradientReadyUs.size();
        const std::size_t g = s.iterations.front().gradientReadyUs.size();
        if (g != g0 || s.worldSize != first.worldSize) {
            throw trace::TraceError(
                s.source + " and " + first.source + " are not ranks of one job: " +
                (g != g0 ? std::to_string(g) + " gradients a backward against " + std::to_string(g0)
                         : std::string("their world sizes differ")));
        }
        const int rank = i < rankNumbers.size() ? rankNumbers[i] : s.rank.value_or(int(i));
        if (!seen.insert(rank).second) {
            throw trace::TraceError(s.source + ": rank " + std::to_string(rank) +
                                    " given twice: traces of one job, one per rank, are expected");
        }
        job.ranks.push_back(rank);
    }
    return job;
}

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
    DdpJob job = ddpJobOf(std::move(steps));
    if (params) {
        job.params = std::move(params);
        job.paramsPath = paramsFile;
    }
    return job;
}

} // namespace commprof::analysis
