// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Small multiples: one panel per model (or per model and placement) where their scales differ by
// an order of magnitude and one axis would squash all but the slowest. The panels share the x
// axis's meaning and title, each has its own y range and its name above it; they wrap into as
// many columns as the figure's width holds, again at every placeLegend (a resize, an export).
// The axis rect resetFigure made stays the first panel, so plot.xAxis and plot.yAxis are its
// axes and a figure of one panel is exactly the figure without facets.

#include "plot_style.h"

#include <QStringList>

#include <vector>

namespace commprof::widgets {

// How a figure's panels are laid out. A bar figure's panels each have their own categories:
// every panel keeps its ticks' labels, and a panel is wide enough to name each of its bars.
struct FacetOptions {
    int leastPx = 150; // a panel's least width: the columns are as many as the width holds
    bool ownX = false; // each panel's x axis has values of its own (categories), not shared
    // At most this many rows of panels (0: as many as the columns leave): past it, narrower
    // columns. Each row takes its panel's title and axis, and five rows in a column's width
    // left the data a third of the figure.
    int mostRows = 0;
    int topMarginPx = 4; // above a panel's axes, below its name
};
constexpr int kFacetMinPx = FacetOptions{}.leastPx;

// Gives the figure a panel per name, in order, named above it; with fewer than two names the
// figure keeps its one axis rect. Returns the panels' axis rects.
std::vector<QCPAxisRect*> makeFacets(QCustomPlot& plot, const QStringList& names,
                                     const FigureStyle& style, FacetOptions options = {});
// An axis's title: x under the lowest panel of each column, y left of the first column (the grid
// keeps it once for every panel); or on the figure's one axis rect.
void setFacetLabel(QCustomPlot& plot, Qt::Orientation axis, const QString& label);
// The panel made for a name, or the figure's first axis rect when there is none.
QCPAxisRect* facetRect(const QCustomPlot& plot, const QString& name);
// Puts the panels in as many columns as the width holds (each at least FacetOptions::leastPx
// wide), the y title on the first column, the x title on the lowest panel of each column, and
// elides each panel's name to its width. Does nothing to a figure without panels.
void arrangeFacets(QCustomPlot& plot);

// The height the data are drawn in: the axis rects' heights summed over their rows of panels
// (one rect: its height).
int plotAreaHeight(const QCustomPlot& plot);

} // namespace commprof::widgets
