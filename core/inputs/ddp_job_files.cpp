// SPDX-License-Identifier: GPL-3.0-or-later
#include "ddp_job_files.h"

#include "inputs/ddp_params_file.h"
#include "trace/trace_error.h"
#include "trace/trace_job.h"
#include "trace/trace_windows.h"

#include <QDir>
#include <QFileInfo>

#include <cstring>
#include <numeric>

namespace commprof::inputs {

using analysis::DdpJob;
using analysis::DdpParams;

namespace {

// What the trace reader says of a trace without collective sizes (trace/ddp_steps.cpp).
constexpr const char* kSizesNeeded = "need --params FILE";

// A trace without collective sizes (the legacy export of torch 1.x; 2.x's gloo without
// record_shapes): each bucket's bytes are its gradients' from the parameters file, taken in
// the order trace whatif takes them, so trace ddp, report and the workbench show the sizes
// whatif replays. Buckets the trace sized keep their own; a rank whose backward readies another
// number of gradients than the file lists is left unsized, and its note says why.
void sizeFromParams(DdpJob* job, const DdpParams& params, const QString& file) {
    const std::vector<double> bytes = params.bytesInReadyOrder();
    for (trace::DdpRankSteps& s : job->steps) {
        bool all = true;
        for (trace::DdpIteration& it : s.iterations) {
            if (it.gradientReadyUs.size() != bytes.size()) {
                all = false;
                continue;
            }
            for (trace::BucketCollective& b : it.buckets) {
                if (b.bytes || b.firstGradient < 0 ||
                    std::size_t(b.firstGradient + b.gradients) > bytes.size()) {
                    continue;
                }
                const auto first = bytes.begin() + b.firstGradient;
                b.bytes = std::accumulate(first, first + b.gradients, 0.0);
            }
        }
        for (std::string& n : s.notes) {
            if (!n.ends_with(kSizesNeeded)) {
                continue;
            }
            n.resize(n.size() - std::strlen(kSizesNeeded));
            n += all ? "read from the parameters file " + file.toStdString()
                     : "not read from " + file.toStdString() + ": it lists " +
                           std::to_string(bytes.size()) +
                           " parameters that take a gradient, some iterations ready another "
                           "number";
        }
    }
}

} // namespace

TraceFiles traceFilesOf(const QStringList& paths) {
    TraceFiles out;
    for (const QString& p : paths) {
        const bool dir = QFileInfo(p).isDir();
        for (std::string& f : dir ? trace::traceFilesIn(p.toStdString())
                                  : std::vector<std::string>{p.toStdString()}) {
            out.files.push_back(std::move(f));
            out.fromDirectory.push_back(dir);
        }
    }
    return out;
}

QString fileBeside(const QStringList& paths, const QString& name) {
    if (paths.isEmpty()) {
        return {};
    }
    const QFileInfo first(paths.first());
    const QString candidate = QDir(first.isDir() ? first.filePath() : first.path()).filePath(name);
    return QFileInfo(candidate).isFile() ? candidate : QString();
}

DdpJob readDdpJob(const QStringList& paths, const trace::ReadOptions& options,
                  const QString& paramsPath) {
    std::optional<DdpParams> params;
    const QString paramsFile = paramsPath.isEmpty() ? fileBeside(paths) : paramsPath;
    if (!paramsFile.isEmpty()) {
        params = readDdpParams(paramsFile);
    }
    const auto [files, fromDirectory] = traceFilesOf(paths);
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
        attachParams(&job, std::move(*params), paramsFile);
    }
    return job;
}

void attachParams(DdpJob* job, DdpParams params, const QString& path) {
    sizeFromParams(job, params, path);
    job->params = std::move(params);
    job->paramsPath = path;
}

} // namespace commprof::inputs
