// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// How every plot of the workbench and of `commprof report` looks, in one place: one colour per
// measurement layer, one dash (and marker) per world size, one colour per kind of time (the
// timeline's), one colour per rank; integer ticks where the axis counts things; a log axis
// where the values span more than a decade; a legend that never covers data; and missing data
// drawn as its own annotated marker, never as a value.

#include "spec/mapped.h"

#include <QColor>
#include <QFont>
#include <QString>
#include <QVector>

#include <qcustomplot.h>

#include <algorithm>

namespace commprof::widgets {

// Text sizes of a figure. The screen uses the application's font; a paper uses 8-9 pt.
struct FigureStyle {
    double fontPt = 9.0;
    double titleDeltaPt = 1.0; // a paper keeps every text within its 8-9 pt
    // A study's repeats each drawn on their own, instead of each group's median and spread
    // (report/repeat_groups.h); the figure keeps the choice as its property "eachRepeat", for
    // picking and marking what it drew.
    bool eachRepeat = false;
    QFont font(double delta = 0.0, bool bold = false) const;
};

QColor layerColour(const QString& layer);
QColor rankColour(int rank);
// Compute, exposed communication, bookkeeping: the timeline's class colours.
QColor computeColour();
QColor communicationColour();
QColor bookkeepingColour();
QColor flaggedColour();
// A colour per comm hook, fixed so that a hook keeps its colour across figures and reports.
QColor hookColour(const QString& hook);
// The colour of a series styled by report::SeriesStyles: the hook's or the layer's own colour
// when that is the colour axis, grey for an empty axis (the legend's entry of a shade), else the
// index-th of a palette; `shade` darkens or lightens it for the axes past the marker's.
QColor seriesColour(const QString& axis, const QString& value, int index, int shade);
// The index-th marker of a figure's second varying axis: filled shapes, then open ones.
QCPScatterStyle::ScatterShape markerShape(int index);

// Dash and marker of the index-th world size in ascending order (1 -> solid, 2 -> dash, ...).
Qt::PenStyle worldSizeDash(int index);
QCPScatterStyle::ScatterShape worldSizeShape(int index);
// What `of` gives over `range`, each value once, ascending: a value's index picks its style.
template <class Out, class Range, class Of> Out ascendingDistinct(const Range& range, Of of) {
    Out out = spec::mapped<Out>(range, of);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

// True when the positive values span more than a decade: then an axis is logarithmic.
bool spansDecades(const QVector<double>& values);
// Makes the axis logarithmic (with decade ticks) when the values span decades and allowLog,
// linear otherwise, and fits its range to the values with headroom for the flagged band;
// `fromZero` keeps a linear axis starting at 0.
void fitAxis(QCPAxis* axis, const QVector<double>& values, bool fromZero, bool allowLog = true);
// Ticks exactly at these integers (world sizes, iterations), whatever the zoom.
void integerTicks(QCPAxis* axis, const QVector<double>& at);
// Ticks at whole numbers only, at a readable spacing: for counts like iterations.
void countTicks(QCPAxis* axis);
// A label per category (1, 2, ...), in smaller text (down to 6.5 pt) where the axis has no room
// for all, and thinned to every k-th one only where even that has none: labels never overlap,
// at any width and any number of categories. A label longer than
// the room across the axis (kTickLabelShare of the figure's height, or the plot's property
// "tickLabelRoomPx" where an export sets it) is broken at its spaces, and only a word longer
// than the room is shortened in its middle.
void categoryTicks(QCPAxis* axis, const QStringList& labels);
constexpr double kTickLabelShare = 0.2;
// The least size category labels and legend keys shrink to, to fit, before they give up words.
constexpr double kLeastLabelPt = 6.5;
// Names runs of neighbouring categories once each, at the top of the axes and centred over the
// run, with a line between runs: the value a run of bars shares leaves their labels ("allreduce"
// over "0.25 mlp_a", "1 mlp_a", ...), so that a study's labels are short enough to read whole.
// `runs` holds each run's name and length, in the categories' order. A name wider than its run
// is broken after an underscore or at a space at each placeLegend ("fp16_" over "compress"),
// in smaller text (to 6.5 pt) where a piece is still too wide; the legend avoids them like data.
void categoryRuns(QCPAxis* axis, const QList<QPair<QString, int>>& runs);
// The name categoryRuns put over the run holding category `key` (1, 2, ...) of the axes in
// `panel` (the figure's first axis rect when null); null without runs.
QCPItemText* categoryRunOf(const QCustomPlot& plot, int key, const QCPAxisRect* panel = nullptr);

// Lines of at most widthPx, broken at spaces (a word longer than a line stays whole).
QString wrapped(const QString& text, const QFont& font, double widthPx);

// A fresh figure: title on top, one axis rect, a legend; fonts from the style.
void resetFigure(QCustomPlot& plot, const QString& title, const QString& x, const QString& y,
                 const FigureStyle& style);
// The style's eachRepeat the figure was drawn with (resetFigure keeps it).
bool eachRepeat(const QCustomPlot& plot);

// Lays a plot out at a size whether or not it is on screen (a hidden widget gets its resize
// event only when shown): for export, and for tests.
void setFigureSize(QCustomPlot& plot, QSize size);
// Elides the title to the plot's width, and wraps every note (a text element named "note",
// its whole text in the property "fullText") at spaces to that width; the whole texts are kept
// to fit them again on resize.
void fitTitle(QCustomPlot& plot);
// The height of what the layout holds below the axis rect (a legend put there, notes), laid
// out at the plot's size.
int heightBelowAxes(QCustomPlot& plot);
// How much less height than they need the elements below the axis rect got, laid out at the
// plot's size (rows of panels above them take their least heights first); 0 where none is cut.
int squeezedBelowAxes(QCustomPlot& plot);
// A note under the axes, wrapped to the plot's width.
QCPTextElement* addNote(QCustomPlot& plot, const QString& text, const FigureStyle& style);
// Puts the legend in the first corner of the axis rect that covers no data region, else below
// the axis rect in as many columns as fit, taking at most a quarter of the figure's height (or
// the plot's property "legendRoomPx"); where the columns hold too few, every entry is flowed
// into one key across the figure's width, its text smaller down to 6.5 pt: no entry is ever left
// out. Replots; may be called again at another size (every entry comes back first).
void placeLegend(QCustomPlot& plot);
// The markers of a figure's second varying axis, as one legend item whose markers flow into
// rows of the figure's width: "bucket_cap_mb: \u25cf 0.25 \u25a0 1 \u25b2 4".
struct LegendMarker {
    QCPScatterStyle::ScatterShape shape;
    QColor colour;
    QString label;
};
void addMarkerKey(QCustomPlot& plot, const QString& title, const QList<LegendMarker>& markers);
// What the figure's marker key says ("bucket_cap_mb: 0.25 1 4"), or empty when it has none.
QString markerKeyText(const QCustomPlot& plot);
// Every plottable the legend names, in its order: as an entry of its own or in a flowed key.
QList<QCPAbstractPlottable*> legendPlottables(const QCustomPlot& plot);
// Their names.
QStringList legendNames(const QCustomPlot& plot);

// A cell with no data at x: a red cross with its status, in a band at the top of the axis
// rect (a facet's panel, else the figure's), so it can never be read as a value. Returns the
// item (named "flagged").
QCPItemText* addFlaggedMarker(QCustomPlot& plot, double x, const QString& cellId,
                              const QString& status, QCPAxisRect* panel = nullptr);
// When no plottable holds data: the text in the middle of the axes (an item named "empty")
// instead of bare axes.
void sayWhenEmpty(QCustomPlot& plot, const QString& text, const FigureStyle& style);
// The legend entry that explains flagged markers (a graph with no data).
void addFlaggedLegendEntry(QCustomPlot& plot);
// Bars along `keys` (a category per key, 0.6 wide) in `colour`, outlined a shade darker.
QCPBars* addBars(QCPAxis* keys, QCPAxis* values, const QString& name, const QColor& colour);

// Whiskers on the plottable's own data (removed from the legend); addSpreadPoint gives the next
// point's from `low` to `high` around `at`.
QCPErrorBars* addSpread(QCPAbstractPlottable* of, const QColor& colour);
void addSpreadPoint(QCPErrorBars* bars, double at, double low, double high);
// Says in the legend what the whiskers are, where a group has more than one repeat.
void addSpreadLegendEntry(QCustomPlot& plot, int mostRepeats);

} // namespace commprof::widgets
