// SPDX-License-Identifier: GPL-3.0-or-later
// commprof trace ddp and trace whatif: a DDP job's step graph from its rank traces, and its
// recorded step replayed under other settings (analysis/ddp_step_graph.h, analysis/whatif.h).
// The traces are read one per reading thread and only their DDP steps kept, so memory stays
// that of `trace summarize`.

#include "analysis/cell_settings.h"
#include "analysis/ddp_job.h"
#include "analysis/ddp_step_graph.h"
#include "analysis/whatif.h"
#include "cli_common.h"
#include "spec/comm_hooks.h"
#include "trace/trace_error.h"
#include "trace_args.h"

namespace commprof::cli {
namespace {

// Every trace's DDP steps, checked to be ranks of one job. Throws TraceError naming the file.
analysis::DdpJob readJob(const TraceArgs& a, const Args& args) {
    return analysis::readDdpJob(a.paths, a.read,
                                args.has("--params") ? args.value("--params") : QString());
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
    if (args.has("--compute-contention")) {
        bool ok = false;
        const double k = args.value("--compute-contention").toDouble(&ok);
        if (!ok || !(k >= 0 && k <= 1)) {
            throw trace::TraceError("--compute-contention: expected a number from 0 to 1, got '" +
                                    args.value("--compute-contention").toStdString() + "'");
        }
        o.computeContention = k;
    }
    if (args.has("--hook-calibration")) {
        QString why;
        o.hookCalibration = analysis::readHookCalibration(args.value("--hook-calibration"), &why);
        if (!o.hookCalibration) {
            throw trace::TraceError("--hook-calibration: " + why.toStdString());
        }
    }
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
        const analysis::DdpJob job = readJob(a, args);
        const analysis::DdpStepGraph g = job.graph();
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
        analysis::WhatIfOptions options = whatIfOptions(args);
        // A results cell's traces: the settings its cell.json records are the recorded ones.
        options.cell = analysis::cellSettingsBeside(a.paths);
        if (options.cell && !analysis::localBaselineWhy(*options.cell).isEmpty()) {
            throw trace::TraceError((a.paths.join(", ") + ": cannot replay: " +
                                     analysis::localBaselineWhy(*options.cell))
                                        .toStdString());
        }
        const analysis::DdpJob job = readJob(a, args);
        const analysis::DdpStepGraph g = job.graph();
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
