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

class QCustomPlot;

namespace commprof::widgets {

// A measured cell of a cap study, where the figure draws it.
struct TuningPoint {
    QString cellId;
    double capMb = 0;
    double stepMs = 0;
    QString panel; // the facets.h panel it is drawn in; empty: the figure's only one
};
std::vector<TuningPoint> tuningPoints(const report::ReportData& data);

void drawTuning(QCustomPlot& plot, const report::ReportData& data, const FigureStyle& style = {});

} // namespace commprof::widgets
