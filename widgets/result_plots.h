#pragma once
// The result figures, drawn into a QCustomPlot from report data. The workbench shows these
// plots and `commprof report` renders the same ones offscreen, so a figure in a paper is the
// figure on screen. Only complete cells are drawn as data or fitted; incomplete and failed
// cells appear as flagged markers.

#include "report/report_data.h"

class QCustomPlot;

namespace commprof::widgets {

void drawOverheadVsWorldSize(QCustomPlot& plot, const report::ReportData& data);
void drawBucketTimeVsBytes(QCustomPlot& plot, const report::ReportData& data);
void drawStackedBreakdown(QCustomPlot& plot, const report::ReportData& data);
void drawAgreement(QCustomPlot& plot, const report::ReportData& data);

// Marks one cell in a figure drawn by the matching draw function (a graph or item named
// "selection"); an empty id clears the mark.
void highlightCell(QCustomPlot& plot, const char* figure, const report::ReportData& data,
                   const QString& cellId);
// The cell a click at a widget position refers to, or empty.
QString cellAt(const QCustomPlot& plot, const char* figure, const report::ReportData& data,
               QPointF pos);
// The cells the breakdown and agreement figures put on their x axis, in order.
std::vector<const store::CellRow*> axisCells(const report::ReportData& data);

struct FigureSpec {
    const char* name;
    void (*draw)(QCustomPlot&, const report::ReportData&);
};
const std::vector<FigureSpec>& reportFigures();

} // namespace commprof::widgets
