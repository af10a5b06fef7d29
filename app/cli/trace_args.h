// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the trace commands share: their flags read once, and the boundary every one runs inside.

#include "cli_common.h"

#include "trace/intervals.h"
#include "trace/trace_input.h"
#include "trace/trace_job.h"

#include <QStringList>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace commprof::cli {

struct TraceArgs {
    QStringList paths;
    Format format = Format::Table;
    bool hta = false;
    std::optional<trace::Span> window;
    trace::ReadOptions read;
    // --launcher slurm: each rank reduced by a task of a Slurm job array.
    bool slurm = false;
    QString partition;
    QString reducedDir; // --reduced: where the tasks' reductions go (and stay)
    QString out;        // trace reduce --out
    // The flags that decide a reduction, as given, for `trace reduce` to read the same way.
    QStringList reduceFlags;
};

// Throws trace::TraceError (bad input, exit 2) with the message to print.
TraceArgs traceArgs(const Args& args);

// The boundary: no input may end the process; every failure is a message and exit 2.
int guarded(const Args& args, const std::function<int(const TraceArgs&)>& command);

// --launcher slurm: FILES reduced by the tasks of one Slurm job array and read back here, as
// trace::readReductions reads them locally. Throws trace::TraceError, naming every task that
// failed and its file, when the job did not run or any task wrote no reduction: the caller then
// prints nothing of the job.
std::vector<trace::LoadedReduction> reduceOnSlurm(const TraceArgs& a,
                                                  const std::vector<std::string>& files);

// How `trace summarize` has glibc's malloc lay out its memory, decided once per process before
// the traces are read (process_memory.cpp; docs/performance.md measures both). One trace: the
// heap in transparent huge pages, for every thread.
void heapInHugePages();
// A job's traces one after another: large blocks from the kernel and back to it.
void keepLargeBlocksOutOfTheHeap();

} // namespace commprof::cli
