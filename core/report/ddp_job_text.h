// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A DDP job's warnings (analysis/ddp_job.h) as every output of the job shows them.

#include "analysis/ddp_job.h"

#include <QJsonObject>
#include <QString>

namespace commprof::report {

// The job's warnings as "warning: ..." lines, led by a line that says the job is incomplete
// where it is: what the text outputs print before the job.
QString describeWarnings(const analysis::DdpJob& job);

// `warnings` and `incomplete` added to a job's JSON (trace ddp's, trace whatif's).
QJsonObject withWarnings(QJsonObject doc, const analysis::DdpJob& job);

} // namespace commprof::report
