// SPDX-License-Identifier: GPL-3.0-or-later
// commprof trace ddp and trace whatif: a DDP job's step graph from its rank traces, and its
// recorded step replayed under other settings (analysis/ddp_step_graph.h, analysis/whatif.h).
// The traces are read one per reading thread and only their DDP steps kept, so memory stays
// that of `trace summarize`.

#include "analysis/ddp_params.h"
#include "analysis/ddp_step_graph.h"
#include "analysis/whatif.h"
#include "cli_common.h"
#include "files/safe_file.h"
#include "spec/comm_hooks.h"
#include "trace/ddp_steps.h"
#include "trace/trace_error.h"
#include "trace/trace_job.h"
#include "trace_args.h"

#include <QFileInfo>

#include <set>

namespace commprof::cli {
namespace {

constexpr qint64 kMaxParamsBytes = 64LL * 1024 * 1024;

struct Job {
    std::vector<trace::DdpRankSteps> steps; // by rank
    std::vector<int> ranks;
    std::optional<analysis::DdpParams> params;
    std::vector<const trace::DdpRankSteps*> pointers() const {
        std::vector<const trace::DdpRankSteps*> out;
        for (const auto& s : steps) {
            out.push_back(&s);
        }
        return out;
    }
};

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

// Every trace's DDP steps, checked to be ranks of one job. Throws TraceError naming the file.
Job readJob(const TraceArgs& a, const Args& args) {
    Job job;
    if (args.has("--params")) {
        const QString path = args.value("--params");
        QString error;
        try {
            job.params = analysis::parseDdpParams(
                files::readRegularFile(path, kMaxParamsBytes, files::Links::Follow), path, &error);
        } catch (const files::FileError& e) {
            throw trace::TraceError((path + ": " + e.detail).toStdString());
        }
        if (!job.params) {
            throw trace::TraceError(error.toStdString());
        }
    }
    std::vector<bool> fromDirectory;
    const std::vector<std::string> files = traceFiles(a.paths, &fromDirectory);
    std::vector<std::optional<trace::DdpRankSteps>> read(files.size());
    const std::vector<trace::ReadOutcome> outcomes = trace::forEachTrace(
        files, a.read, 0, [&](std::size_t i, trace::Trace&& t) { read[i] = trace::ddpSteps(t); });
    for (std::size_t i = 0; i < files.size(); ++i) {
        if (outcomes[i].notATrace && fromDirectory[i]) {
            continue; // a job's folder may hold other JSON beside its traces (--params files)
        }
        if (!outcomes[i].error.empty()) {
            throw trace::TraceError(outcomes[i].error);
        }
        if (read[i]) {
            job.steps.push_back(std::move(*read[i]));
        }
    }
    if (job.steps.empty()) {
        throw trace::TraceError(a.paths.join(", ").toStdString() + ": no trace read");
    }
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
        const int rank = s.rank.value_or(int(i));
        if (!seen.insert(rank).second) {
            throw trace::TraceError(s.source + ": rank " + std::to_string(rank) +
                                    " given twice: traces of one job, one per rank, are expected");
        }
        job.ranks.push_back(rank);
    }
    return job;
}

std::optional<double> positive(const Args& args, const char* flag) {
    if (!args.has(flag)) {
        return std::nullopt;
    }
    bool ok = false;
    const double v = args.value(flag).toDouble(&ok);
    if (!ok || !(v > 0) || !std::isfinite(v)) {
        throw trace::TraceError(std::string(flag) + ": expected a number > 0, got '" +
                                args.value(flag).toStdString() + "'");
    }
    return v;
}

analysis::WhatIfOptions whatIfOptions(const Args& args) {
    analysis::WhatIfOptions o;
    if (args.has("--bucket-cap-mb")) {
        for (const QString& part : args.value("--bucket-cap-mb").split(',')) {
            bool ok = false;
            const double v = part.trimmed().toDouble(&ok);
            if (!ok || !(v > 0) || !std::isfinite(v)) {
                throw trace::TraceError("--bucket-cap-mb: expected numbers > 0 separated by "
                                        "commas, got '" +
                                        part.toStdString() + "'");
            }
            o.capsMb.push_back(v);
        }
    }
    if (args.has("--hook")) {
        for (const QString& part : args.value("--hook").split(',')) {
            if (!spec::findCommHook(part.trimmed().toStdString())) {
                throw trace::TraceError("--hook: unknown hook '" + part.toStdString() +
                                        "' (allreduce, fp16_compress, bf16_compress, powersgd, "
                                        "local)");
            }
            o.hooks << part.trimmed();
        }
    }
    o.firstBucketMb = positive(args, "--first-bucket-mb");
    o.bandwidthX = positive(args, "--bandwidth-x").value_or(1);
    o.recordedCapMb = positive(args, "--recorded-bucket-cap-mb");
    if (const auto n = positive(args, "--world-size")) {
        if (*n != std::floor(*n) || *n < 2 || *n > 1e6) {
            throw trace::TraceError("--world-size: expected a whole number >= 2, got '" +
                                    args.value("--world-size").toStdString() + "'");
        }
        o.worldSize = int(*n);
    }
    return o;
}

} // namespace

int traceDdpCommand(const Args& args) {
    return guarded(args, [&](const TraceArgs& a) {
        const Job job = readJob(a, args);
        const analysis::DdpStepGraph g = analysis::buildStepGraph(
            job.pointers(), job.ranks, job.params ? job.params->names() : QStringList{});
        if (a.format == Format::Json) {
            printJson(analysis::toJson(g));
        } else {
            printText(analysis::describe(g));
        }
        return Ok;
    });
}

int traceWhatIfCommand(const Args& args) {
    return guarded(args, [&](const TraceArgs& a) {
        const analysis::WhatIfOptions options = whatIfOptions(args);
        const Job job = readJob(a, args);
        const analysis::DdpStepGraph g = analysis::buildStepGraph(
            job.pointers(), job.ranks, job.params ? job.params->names() : QStringList{});
        QString why;
        const std::optional<analysis::WhatIf> w =
            analysis::whatIf(g, job.params ? &*job.params : nullptr, options, &why);
        if (!w) {
            throw trace::TraceError((a.paths.join(", ") + ": cannot replay: " + why).toStdString());
        }
        if (a.format == Format::Json) {
            printJson(analysis::toJson(*w));
        } else {
            printText(analysis::describe(*w));
        }
        return Ok;
    });
}

} // namespace commprof::cli
