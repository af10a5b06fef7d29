// SPDX-License-Identifier: GPL-3.0-or-later
// commprof trace ddp and trace whatif: a DDP job's step graph from its rank traces, and its
// recorded step replayed under other settings (analysis/ddp_step_graph.h, analysis/whatif.h).
// The traces are read one per reading thread and only their DDP steps kept, so memory stays
// that of `trace summarize`.

#include "analysis/ddp_job.h"
#include "analysis/ddp_step_graph.h"
#include "analysis/whatif.h"
#include "cli_common.h"
#include "inputs/cell_settings_file.h"
#include "inputs/ddp_job_files.h"
#include "report/ddp_step_graph_text.h"
#include "report/whatif_text.h"
#include "results/cell_files.h"
#include "results/hook_calibration.h"
#include "results/results_folder.h"
#include "spec/comm_hooks.h"
#include "spec/names.h"
#include "spec/sane_values.h"
#include "trace/trace_error.h"
#include "trace_args.h"

#include <QDir>
#include <QFileInfo>

namespace commprof::cli {
namespace {

// FLAG's value when given, checked against the one sanity rule for sizes and rates
// (spec/sane_values.h): a denormal factor or a 1e308 MiB cap is refused here, naming the flag,
// before it turns a step into inf.
std::optional<double> sane(const Args& args, const char* flag, const spec::SaneRange& range) {
    if (!args.has(flag)) {
        return std::nullopt;
    }
    bool ok = false;
    const double v = args.value(flag).toDouble(&ok);
    if (!ok) {
        throw trace::TraceError(std::string(flag) + ": expected a number, got '" +
                                args.value(flag).toStdString() + "'");
    }
    if (const std::string why = spec::outsideSaneRange(v, range); !why.empty()) {
        throw trace::TraceError(std::string(flag) + ": " + why);
    }
    return v;
}

// --sweep RUN: the sweep cells of a results folder, or the one cell RUN is. A folder that is
// neither, or holds no sweep cell, is refused here naming it; which cell matches the job is
// the what-if's to say (it knows the job's world size, backend and link).
void readSweeps(const Args& args, analysis::WhatIfOptions* o) {
    if (!args.has("--sweep")) {
        return;
    }
    o->sweepRun = args.value("--sweep");
    std::vector<results::CellFiles> cells;
    if (QFileInfo(QDir(o->sweepRun).filePath("cell.json")).isFile()) {
        cells.push_back(results::readCellDir(o->sweepRun));
    } else if (const results::FolderCheck check = results::checkResultsFolder(o->sweepRun);
               !check.ok) {
        throw trace::TraceError("--sweep: " + check.reason.toStdString());
    } else {
        cells = results::readCells(o->sweepRun);
    }
    o->sweeps = analysis::sweepOffers(cells);
    if (o->sweeps.empty()) {
        throw trace::TraceError(
            ("--sweep " + o->sweepRun +
             ": no kind: sweep cell here (cells/*/cell.json with kind: sweep, what a matrix's "
             "`kind: sweep` model runs)")
                .toStdString());
    }
}

analysis::WhatIfOptions whatIfOptions(const Args& args) {
    analysis::WhatIfOptions o;
    if (args.has("--bucket-cap-mb")) {
        for (const QString& part : args.value("--bucket-cap-mb").split(',')) {
            bool ok = false;
            const double v = part.trimmed().toDouble(&ok);
            const std::string why =
                ok ? spec::outsideSaneRange(v, spec::kSaneMebibytes) : "expected a number";
            if (!why.empty()) {
                throw trace::TraceError("--bucket-cap-mb: " + why +
                                        " (numbers separated by "
                                        "commas), got '" +
                                        part.toStdString() + "'");
            }
            o.capsMb.push_back(v);
        }
    }
    if (args.has("--hook")) {
        for (const QString& part : args.value("--hook").split(',')) {
            if (!spec::findCommHook(part.trimmed().toStdString())) {
                throw trace::TraceError("--hook: unknown hook '" + part.toStdString() + "' (" +
                                        spec::namesOf(spec::kCommHooks) + ")");
            }
            o.hooks << part.trimmed();
        }
    }
    o.firstBucketMb = sane(args, "--first-bucket-mb", spec::kSaneMebibytes);
    o.bandwidthX = sane(args, "--bandwidth-x", spec::kSaneFactor).value_or(1);
    o.recordedCapMb = sane(args, "--recorded-bucket-cap-mb", spec::kSaneMebibytes);
    o.computeContention = sane(args, "--compute-contention", spec::kSaneShare);
    QString why;
    if (args.has("--hook-calibration")) {
        o.hookCalibration = results::readHookCalibration(args.value("--hook-calibration"), &why);
        if (!o.hookCalibration) {
            throw trace::TraceError("--hook-calibration: " + why.toStdString());
        }
    } else {
        o.hookCalibration = results::storedHookCalibration(&why);
        if (!why.isEmpty()) {
            printError("warning: this machine's hook calibration is not used: " + why);
        }
    }
    // A what-if world size: at least 2 ranks (one rank reduces nothing).
    if (const auto n = sane(args, "--world-size", spec::kSaneWorldSize)) {
        if (*n < 2) {
            throw trace::TraceError("--world-size: expected a whole number >= 2, got '" +
                                    args.value("--world-size").toStdString() + "'");
        }
        o.worldSize = int(*n);
    }
    readSweeps(args, &o);
    return o;
}

// The job's result (its step graph or what-if) with its warnings: in the JSON (and on stderr,
// which a reader of the JSON alone may not look at otherwise), or before the text.
template <typename Result>
void printJob(const analysis::DdpJob& job, Format format, const Result& result) {
    if (format == Format::Json) {
        for (const QString& line : report::describeWarnings(job).split('\n', Qt::SkipEmptyParts)) {
            printError(line);
        }
        printJson(report::withWarnings(report::toJson(result), job));
    } else {
        printText(report::describeWarnings(job) + report::describe(result));
    }
}

} // namespace

int traceDdpCommand(const Args& args) {
    return guarded(args, [&](const TraceArgs& a) {
        const analysis::DdpJob job = inputs::readDdpJob(a.paths, a.read, args.value("--params"));
        printJob(job, a.format, job.graph());
        return Ok;
    });
}

int traceWhatIfCommand(const Args& args) {
    return guarded(args, [&](const TraceArgs& a) {
        analysis::WhatIfOptions options = whatIfOptions(args);
        // A results cell's traces: the settings its cell.json records are the recorded ones.
        options.cell = inputs::cellSettingsBeside(a.paths);
        if (options.cell && !analysis::localBaselineWhy(*options.cell).isEmpty()) {
            throw trace::TraceError((a.paths.join(", ") + ": cannot replay: " +
                                     analysis::localBaselineWhy(*options.cell))
                                        .toStdString());
        }
        const analysis::DdpJob job = inputs::readDdpJob(a.paths, a.read, args.value("--params"));
        const analysis::DdpStepGraph g = job.graph();
        QString why;
        const std::optional<analysis::WhatIf> w =
            analysis::whatIf(g, job.params ? &*job.params : nullptr, options, &why);
        if (!w) {
            // The recorded cap is inferred with the first bucket given: name the flag where it
            // may be why no cap reproduces the recorded buckets.
            if (options.firstBucketMb && !options.recordedCapMb) {
                why += QString(" (--first-bucket-mb %1 was taken as the recorded job's first "
                               "bucket too: its recorded buckets may not start with one of %1 "
                               "MiB)")
                           .arg(args.value("--first-bucket-mb"));
            }
            throw trace::TraceError((a.paths.join(", ") + ": cannot replay: " + why).toStdString());
        }
        printJob(job, a.format, *w);
        return Ok;
    });
}

} // namespace commprof::cli
