// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A DDP job read from its files: every rank's trace, only its DDP steps kept, and the
// parameters file beside them or given (analysis/ddp_job.h is the record they fill).

#include "analysis/ddp_job.h"
#include "trace/trace_input.h"

#include <QString>
#include <QStringList>

#include <string>
#include <vector>

namespace commprof::inputs {

// The file the job scripts write beside their traces (tests/ddp_trace_job.py): read without
// being asked for when a folder of traces holds one.
inline constexpr const char* kParamsFileName = "params.json";

// FILES and folders of traces (a folder: its *.json and *.json.gz; JSON there that is not a
// trace is passed over), read in parallel, only their DDP steps kept. The
// parameters: `paramsPath` when given, else a params.json in the folder given or of the first
// file. Throws trace::TraceError naming the file that could not be read or is no DDP step.
analysis::DdpJob readDdpJob(const QStringList& paths, const trace::ReadOptions& options,
                            const QString& paramsPath = {});

// Gives the job its parameters (read from `path`) and sizes from them each bucket the traces
// left unsized (the legacy export), its note then naming the file: what readDdpJob does with
// the file it finds, for a job whose traces were read elsewhere (the workbench's, already open).
void attachParams(analysis::DdpJob* job, analysis::DdpParams params, const QString& path);

// The files a job is read from: the paths given, a folder by its traces. Whether each came from
// a folder decides whether a file that is no trace is skipped or refused.
struct TraceFiles {
    std::vector<std::string> files;
    std::vector<bool> fromDirectory;
};
TraceFiles traceFilesOf(const QStringList& paths);

// The file `name` beside these traces (in the folder given, or the first file's), or empty.
QString fileBeside(const QStringList& paths, const QString& name = kParamsFileName);

} // namespace commprof::inputs
