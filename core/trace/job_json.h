// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The JSON shape of `commprof trace summarize` over several ranks' traces (docs/cli.md).

#include "trace_job.h"

#include <QJsonObject>

namespace commprof::trace {

QJsonObject toJson(const CollectiveInstance& i);
QJsonObject toJson(const RankLateness& r);
QJsonObject toJson(const StepVerdict& v);
// instances, skew summary, lateness per rank, stragglers, steps and the rule that decided;
// without `withInstances`, "instances" is left out (everything else is the same).
QJsonObject toJson(const JobAnalysis& job, bool withInstances = true);

} // namespace commprof::trace
