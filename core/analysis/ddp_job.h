// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A DDP job as its traces hold it: every rank's DDP steps (trace/ddp_steps.h), checked to be
// ranks of one job, and the parameters file that names and sizes its gradients where one is
// given or lies beside the traces. `commprof trace ddp`, `trace whatif`, `report` on a trace
// folder and the workbench's What if page all read a job by inputs/ddp_job_files.h into this
// one record, so they agree on what a job is.

#include "analysis/ddp_params.h"
#include "analysis/ddp_step_graph.h"
#include "trace/ddp_steps.h"

#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace commprof::analysis {

struct DdpJob {
    std::vector<trace::DdpRankSteps> steps; // one per rank, in the order read
    std::vector<int> ranks;                 // steps[i] is rank ranks[i]
    std::optional<DdpParams> params;
    QString paramsPath; // where params came from; empty when none
    // What the readers found wrong, each naming its rank and file: the traces' own warnings
    // (a cut, dropped events, absurd values), ranks missing from the world size, ranks whose
    // iterations disagree in number. Every output of the job shows them.
    QStringList warnings;
    // A rank's trace was cut or broken, or a rank of the world size has no trace: the job is
    // a part, and every output says so (the warnings say which).
    bool incomplete = false;
    std::vector<const trace::DdpRankSteps*> pointers() const;
    // The step graph over every rank; it points into this job, which must outlive it.
    DdpStepGraph graph() const;
};

// A job with its step graph, built where it stays (the graph points into the job): what the
// workbench keeps while a job's traces are open, shared with the jobs that read it.
struct DdpJobAnalysis {
    explicit DdpJobAnalysis(DdpJob j) : job(std::move(j)), graph(job.graph()) {}
    DdpJobAnalysis(const DdpJobAnalysis&) = delete;
    DdpJobAnalysis& operator=(const DdpJobAnalysis&) = delete;
    const DdpJob job;
    const DdpStepGraph graph;
};

// The ranks' steps checked to be of one job: the same gradients a backward and the same world
// size, every rank once and inside the world size. `rankNumbers[i]`, where given, is steps[i]'s
// rank (a timeline's), else the trace's own, else i. Throws trace::TraceError naming the traces
// that disagree. The job's warnings and `incomplete` are filled here.
DdpJob ddpJobOf(std::vector<trace::DdpRankSteps> steps, const std::vector<int>& rankNumbers = {});

} // namespace commprof::analysis
