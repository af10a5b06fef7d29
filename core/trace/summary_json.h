#pragma once
// The JSON shapes of `commprof trace summarize` (docs/cli.md). Ratios that are undefined are
// JSON null, never NaN.

#include "hta_figures.h"
#include "step_metrics.h"

#include <QJsonObject>

namespace commprof::trace {

QJsonObject toJson(const StepMetrics& m);
QJsonObject toJson(const TraceSummary& s);
QJsonObject toJson(const HtaFigures& h);

} // namespace commprof::trace
