// SPDX-License-Identifier: GPL-3.0-or-later
#include "facets.h"

#include <qcustomplot.h>

#include <QMap>

#include <algorithm>
#include <numeric>

namespace commprof::widgets {
namespace {

constexpr const char* kFacetGrid = "facets";
constexpr const char* kFacetName = "facetName";
constexpr const char* kPanelTitle = "facetTitle";
constexpr const char* kNoteCell = "noteCell";
constexpr const char* kOptions = "facetOptions";

QCPLayoutGrid* facetGrid(const QCustomPlot& plot) {
    QCPLayoutGrid* main = plot.plotLayout();
    for (int i = 0; i < main->elementCount(); ++i) {
        auto* grid = qobject_cast<QCPLayoutGrid*>(main->elementAt(i));
        if (grid && grid->objectName() == kFacetGrid) {
            return grid;
        }
    }
    return nullptr;
}

// A panel: its name above its axis rect.
QCPLayoutGrid* makePanel(QCustomPlot& plot, QCPAxisRect* rect, const QString& name,
                         const FigureStyle& style, const FacetOptions& options) {
    auto* title = new QCPTextElement(&plot, name, style.font());
    title->setObjectName(kPanelTitle);
    title->setProperty("fullTitle", name);
    title->setMargins(QMargins(2, 2, 2, 3)); // room below the text keeps underscores visible
    rect->setProperty(kFacetName, name);
    // QCustomPlot's 15 px on every side would take a fifth of a small panel: room for the
    // ticks' labels only (the last x label overhangs the right by half its width).
    rect->setMinimumMargins(QMargins(4, options.topMarginPx, 10, 2));
    auto* panel = new QCPLayoutGrid;
    panel->setRowSpacing(0);
    panel->addElement(0, 0, title);
    panel->addElement(1, 0, rect);
    return panel;
}

// A new panel's axes read as the first one's: the same fonts and padding.
void styleLike(QCPAxisRect* rect, const QCPAxisRect* first) {
    for (const QCPAxis::AxisType type : {QCPAxis::atBottom, QCPAxis::atLeft}) {
        QCPAxis* a = rect->axis(type);
        const QCPAxis* model = first->axis(type);
        a->setTickLabelFont(model->tickLabelFont());
        a->setLabelFont(model->labelFont());
        a->setLabelPadding(model->labelPadding());
    }
}

// A panel of the grid (a legend or a note put in an empty cell is none).
bool isPanel(QCPLayoutElement* e) {
    auto* panel = qobject_cast<QCPLayoutGrid*>(e);
    return panel && !qobject_cast<QCPLegend*>(e) && panel->objectName() != kNoteCell;
}

// The figure's note (addNote) under the axes, as addNote put it.
void noteBelow(QCustomPlot& plot, QCPLayoutGrid* grid, QCPTextElement* note) {
    auto* cell = qobject_cast<QCPLayoutGrid*>(note->layout());
    if (!cell || cell->objectName() != kNoteCell) {
        return;
    }
    cell->take(note);
    grid->remove(cell);
    grid->simplify();
    QCPLayoutGrid* main = plot.plotLayout();
    main->addElement(main->rowCount(), 0, note);
    main->setRowStretchFactor(main->rowCount() - 1, 0.001);
    fitTitle(plot);
}

// The note in the cell the last row of panels leaves empty, where under the axes it would grow
// the figure by its lines. It sits atop the cell, over a filler that takes the row's height: a
// text element alone would cap the row at its height (a grid's row is no taller than that).
void noteInSpareCell(QCustomPlot& plot, QCPLayoutGrid* grid, QCPTextElement* note, int room) {
    note->layout()->take(note);
    plot.plotLayout()->simplify();
    auto* cell = new QCPLayoutGrid;
    cell->setObjectName(kNoteCell);
    grid->addElement(cell); // the first empty cell: the one after the last panel
    cell->addElement(0, 0, note);
    cell->addElement(1, 0, new QCPLayoutElement(&plot));
    cell->setRowStretchFactor(0, 0.001);
    note->setText(wrapped(note->property("fullText").toString(), note->font(),
                          room - note->margins().left() - note->margins().right()));
}

} // namespace

std::vector<QCPAxisRect*> makeFacets(QCustomPlot& plot, const QStringList& names,
                                     const FigureStyle& style, FacetOptions options) {
    QCPAxisRect* first = plot.xAxis->axisRect();
    if (names.size() < 2) {
        return {first};
    }
    QCPLayoutGrid* main = plot.plotLayout();
    int row = 0;
    while (row < main->rowCount() && main->element(row, 0) != first) {
        ++row;
    }
    main->take(first);
    auto* grid = new QCPLayoutGrid;
    grid->setObjectName(kFacetGrid);
    grid->setProperty("xLabel", plot.xAxis->label());
    grid->setProperty("yLabel", plot.yAxis->label());
    grid->setProperty(kOptions, QVariant::fromValue(options));
    main->addElement(row, 0, grid);
    std::vector<QCPAxisRect*> rects;
    for (const QString& name : names) {
        QCPAxisRect* rect = rects.empty() ? first : new QCPAxisRect(&plot);
        if (rect != first) {
            styleLike(rect, first);
        }
        grid->addElement(makePanel(plot, rect, name, style, options));
        rects.push_back(rect);
    }
    arrangeFacets(plot);
    return rects;
}

void setFacetLabel(QCustomPlot& plot, Qt::Orientation axis, const QString& label) {
    const bool x = axis == Qt::Horizontal;
    if (QCPLayoutGrid* grid = facetGrid(plot)) {
        grid->setProperty(x ? "xLabel" : "yLabel", label);
        arrangeFacets(plot);
    } else {
        (x ? plot.xAxis : plot.yAxis)->setLabel(label);
    }
}

QCPAxisRect* facetRect(const QCustomPlot& plot, const QString& name) {
    const QList<QCPAxisRect*> rects = plot.axisRects();
    const auto it = std::ranges::find_if(rects, [&](const QCPAxisRect* r) {
        return !name.isEmpty() && r->property(kFacetName).toString() == name;
    });
    return it == rects.end() ? plot.xAxis->axisRect() : *it;
}

void arrangeFacets(QCustomPlot& plot) {
    QCPLayoutGrid* grid = facetGrid(plot);
    if (!grid) {
        return;
    }
    QCPTextElement* note = plot.findChild<QCPTextElement*>("note");
    if (note) {
        noteBelow(plot, grid, note);
    }
    const auto panels = int(std::ranges::count_if(grid->elements(false), isPanel));
    const int width = plot.viewport().width();
    const auto options = grid->property(kOptions).value<FacetOptions>();
    int columns = std::clamp(width / std::max(1, options.leastPx), 1, std::max(1, panels));
    if (const int rows = options.mostRows; rows > 0) {
        columns = std::clamp((panels + rows - 1) / rows, columns, std::max(1, panels));
    }
    grid->setWrap(columns);
    grid->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
    if (note && panels % columns != 0) {
        noteInSpareCell(plot, grid, note, width / columns - 8);
    }
    const QString xLabel = grid->property("xLabel").toString();
    const QString yLabel = grid->property("yLabel").toString();
    const int room = width / columns - 8;
    for (int i = 0; i < panels; ++i) {
        auto* panel = qobject_cast<QCPLayoutGrid*>(grid->elementAt(i));
        if (!isPanel(panel)) {
            continue;
        }
        auto* title = qobject_cast<QCPTextElement*>(panel->element(0, 0));
        auto* rect = qobject_cast<QCPAxisRect*>(panel->element(1, 0));
        if (!title || !rect) {
            continue;
        }
        title->setText(QFontMetrics(title->font())
                           .elidedText(title->property("fullTitle").toString(), Qt::ElideRight,
                                       std::max(room, 1)));
        // One title per axis where a reader looks for it: left of the first column, under
        // the lowest panel of each column (the panels share the x axis, and its ticks, unless
        // each has categories of its own).
        const bool lowest = i + columns >= panels;
        rect->axis(QCPAxis::atLeft)->setLabel(i % columns == 0 ? yLabel : QString());
        rect->axis(QCPAxis::atBottom)->setLabel(lowest ? xLabel : QString());
        rect->axis(QCPAxis::atBottom)->setTickLabels(lowest || options.ownX);
    }
}

int plotAreaHeight(const QCustomPlot& plot) {
    QMap<int, int> tallestByRow; // a row of panels shares its top
    for (const QCPAxisRect* r : plot.axisRects()) {
        int& tallest = tallestByRow[r->top()];
        tallest = std::max(tallest, r->height());
    }
    return std::accumulate(tallestByRow.begin(), tallestByRow.end(), 0);
}

} // namespace commprof::widgets
