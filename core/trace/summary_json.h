// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The JSON shapes of `commprof trace summarize` and `commprof trace collectives`
// (docs/cli.md). Ratios that are undefined are JSON null, never NaN.

#include "collectives.h"
#include "hta_figures.h"
#include "step_metrics.h"

#include <QJsonArray>
#include <QJsonObject>

namespace commprof::trace {

QJsonObject toJson(const StepMetrics& m);
QJsonObject toJson(const TraceSummary& s);
// The five HTA figures, under the names HTA prints.
QJsonObject toJson(const HtaFigures& h);
QJsonObject toJson(const CollectiveRecord& r);
QJsonObject toJson(const KindSummary& k);
QJsonValue toJson(const DistributedInfo& d);
QJsonArray toJson(const std::vector<KindSummary>& kinds);
QJsonArray toJson(const std::vector<std::string>& strings);

} // namespace commprof::trace
