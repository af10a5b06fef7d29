// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The tuning figure: step time and exposed communication against bucket cap (log x), a colour
// per hook and a panel per model, layer and world size (facets.h: two models' steps may differ
// tenfold), for each cap study of `commprof recommend`: the predicted step as a line, the
// measured steps as filled markers, the predicted exposed communication dashed and the measured
// one as open markers, the recommended cap as a triangle. Groups that predict nothing are named
// in a note with their reason; incomplete cells of a study are flagged markers in their panel.

#include "plot_style.h"
#include "report/report_data.h"

namespace commprof::widgets {

void drawTuning(QCustomPlot& plot, const report::ReportData& data, const FigureStyle& style = {});

} // namespace commprof::widgets
