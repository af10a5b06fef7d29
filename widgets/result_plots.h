// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The result figures, drawn into a QCustomPlot from report data. The workbench shows these
// plots and `commprof report` renders the same ones offscreen, so a figure in a paper is the
// figure on screen. Only complete cells are drawn as data or fitted; incomplete and failed
// cells appear as flagged markers in a band of their own, never as a value. A study's repeats
// are drawn as each group's median with whiskers to its min and max (report/repeat_groups.h),
// or each on its own where FigureStyle::eachRepeat asks; a click on a median picks the repeat
// nearest it.

#include "plot_style.h"
#include "report/repeat_groups.h"
#include "report/report_data.h"

namespace commprof::widgets {

// Marks one cell in a figure drawn by the matching draw function (a graph or item named
// "selection", or the cell's flagged marker outlined); an empty id clears the mark.
void highlightCell(QCustomPlot& plot, const char* figure, const report::ReportData& data,
                   const QString& cellId);
// The cell a click at a widget position refers to, or empty.
QString cellAt(const QCustomPlot& plot, const char* figure, const report::ReportData& data,
               QPointF pos);
// What hovering at a widget position shows: the cell's id, status and figures, or empty.
QString toolTipAt(const QCustomPlot& plot, const char* figure, const report::ReportData& data,
                  QPointF pos);
// An incomplete or failed cell: drawn as a flagged marker, never as data.
bool flaggedCell(const store::CellRow& c);
// The DDP cells the breakdown and agreement figures put on their x axis, in order.
std::vector<const store::CellRow*> axisCells(const report::ReportData& data);
// Their bars: a group of repeats each (its median and spread), or a cell each when `each`.
std::vector<report::RepeatGroup> axisGroups(const report::ReportData& data, bool each = false);
const store::CellRow* findCell(const report::ReportData& data, const QString& cellId);

// What a figure drew of its cells, kept on the plot when it is drawn (keepMarks): a click, a
// hover and a selection find their cell here, not by grouping every cell on each mouse move.
struct DrawnMark {
    QString panel;        // the facet's name (facets.h); empty in a figure of one panel
    double key = 0;       // a point's x, or the bar's category (1, 2, ... in its panel)
    double value = 0;     // a point's y: the median drawn, a measured step, a bucket's time
    QString pick;         // the cell a click on the mark picks: the repeat at the median
    QStringList cells;    // every repeat of the group
    double halfWidth = 0; // a bar's: a click this near its key, in categories, picks it; 0: a point
};
void keepMarks(QCustomPlot& plot, const QList<DrawnMark>& marks);

struct FigureSpec {
    const char* name;
    const char* title; // for menus and file dialogs
    void (*draw)(QCustomPlot&, const report::ReportData&, const FigureStyle&);
    // Whether the results hold what the figure is about; a report leaves out one that does not
    // (the workbench hides its page). nullptr: every results folder.
    bool (*applies)(const report::ReportData&) = nullptr;
    bool appliesTo(const report::ReportData& data) const { return !applies || applies(data); }
};
// Every figure, in the order the results view shows them and a report writes them.
const std::vector<FigureSpec>& reportFigures();
const FigureSpec* figureNamed(const QString& name);

} // namespace commprof::widgets
