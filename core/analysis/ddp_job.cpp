// SPDX-License-Identifier: GPL-3.0-or-later
#include "ddp_job.h"

#include "files/safe_file.h"
#include "trace/trace_error.h"
#include "trace/trace_job.h"
#include "trace/trace_windows.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>

#include <algorithm>
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

// The job's warnings: each rank's reader warnings with its rank and file, the ranks of the
// world size without a trace, and iteration counts that differ between ranks.
void noteWarnings(DdpJob* job, std::optional<int> worldSize) {
    for (std::size_t i = 0; i < job->steps.size(); ++i) {
        const trace::DdpRankSteps& s = job->steps[i];
        const QString who =
            QString("rank %1 (%2)").arg(job->ranks[i]).arg(QString::fromStdString(s.source));
        for (const std::string& w : s.warnings) {
            job->warnings << who + ": " + QString::fromStdString(w);
        }
        if (s.readInPart) {
            job->incomplete = true;
            job->warnings << who + ": only part of the trace could be read: its iterations after "
                                   "the cut are missing";
        }
    }
    if (worldSize) {
        const std::set<int> present(job->ranks.begin(), job->ranks.end());
        QStringList missing;
        for (int r = 0; r < *worldSize && missing.size() < 20; ++r) {
            if (!present.count(r)) {
                missing << QString::number(r);
            }
        }
        if (!missing.isEmpty()) {
            job->incomplete = true;
            const int absent = *worldSize - int(present.size());
            job->warnings << QString("world size %1, but no trace of rank%2 %3%4: the job's "
                                     "culprits and waits are of the ranks read only")
                                 .arg(*worldSize)
                                 .arg(absent == 1 ? "" : "s")
                                 .arg(missing.join(", "))
                                 .arg(absent > missing.size() ? QString(" (%1 in all)").arg(absent)
                                                              : QString());
        }
    }
    const auto most =
        std::max_element(job->steps.begin(), job->steps.end(), [](const auto& a, const auto& b) {
            return a.iterations.size() < b.iterations.size();
        });
    for (std::size_t i = 0; i < job->steps.size(); ++i) {
        const trace::DdpRankSteps& s = job->steps[i];
        if (s.iterations.size() != most->iterations.size()) {
            job->warnings << QString("rank %1 (%2) has %3 iterations where rank %4 has %5")
                                 .arg(job->ranks[i])
                                 .arg(QString::fromStdString(s.source))
                                 .arg(s.iterations.size())
                                 .arg(job->ranks[std::size_t(most - job->steps.begin())])
                                 .arg(most->iterations.size());
        }
    }
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
    std::optional<int> worldSize;
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
        worldSize = s.worldSize;
        if (rank < 0 || (worldSize && rank >= *worldSize)) {
            throw trace::TraceError(
                s.source + ": rank " + std::to_string(rank) +
                (worldSize ? " is outside the job's world size " + std::to_string(*worldSize)
                           : std::string(" is negative")) +
                ": not a rank of the job");
        }
        job.ranks.push_back(rank);
    }
    noteWarnings(&job, worldSize);
    return job;
}

QString describeWarnings(const DdpJob& job) {
    QString out;
    if (job.incomplete) {
        out += "warning: incomplete job: a rank's trace is cut or missing, so what follows is "
               "part of the job, not the whole\n";
    }
    for (const QString& w : job.warnings) {
        out += "warning: " + w + "\n";
    }
    return out;
}

QJsonObject withWarnings(QJsonObject doc, const DdpJob& job) {
    doc.insert("warnings", QJsonArray::fromStringList(job.warnings));
    doc.insert("incomplete", job.incomplete);
    return doc;
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
