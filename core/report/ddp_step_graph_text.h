// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The DDP step graph (analysis/ddp_step_graph.h) as `commprof trace ddp` prints it, in JSON
// (docs/cli.md) and in text, and its culprits as the trace inspector lists them: rendering
// lives here, beside the other outputs, so analysis only computes. And the warnings of the job
// the graph is of.

#include "analysis/ddp_job.h"
#include "analysis/ddp_step_graph.h"

#include <QJsonObject>
#include <QString>

namespace commprof::report {

QJsonObject toJson(const analysis::DdpStepGraph& g);
QString describe(const analysis::DdpStepGraph& g);
// "rank 1: the other ranks waited 12.30 ms for it at 8 buckets", as describe() lists culprits.
QString describe(const analysis::Culprit& c);

// The job's warnings as "warning: ..." lines, led by a line that says the job is incomplete
// where it is: what the text outputs print before the job.
QString describeWarnings(const analysis::DdpJob& job);

// `warnings` and `incomplete` added to a job's JSON (trace ddp's, trace whatif's).
QJsonObject withWarnings(QJsonObject doc, const analysis::DdpJob& job);

} // namespace commprof::report
