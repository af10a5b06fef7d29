// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// How the figures tell cells apart: by every axis that varies among the cells they draw, so
// cells that differ in any setting never land on one series (or one label) and overwrite each
// other; and how each of those axes is shown (a colour, a marker), so that a legend names each
// value once instead of every combination.

#include "store/cell_row.h"

#include <QStringList>

#include <vector>

namespace commprof::report {

// The axes (store::CellRow::axes keys) that take more than one value among `cells`, less
// `leaveOut` (the figure's own x axis, say): the hook first, then the other settings in the
// order the first cell lists them, the layer and the model last.
QStringList varyingAxes(const std::vector<const store::CellRow*>& cells,
                        const QStringList& leaveOut);

// Numbers in numeric order (0.25 < 1 < 4 < 25), anything else as text after them.
bool valueLess(const QString& a, const QString& b);

// "mlp2m gloo_cpu hook=powersgd": the model and (unless `withLayer` is false) the layer, as the
// figures have always named a series, then each other axis of `varying` as key=value.
QString seriesName(const store::CellRow& c, const QStringList& varying, bool withLayer = true);

// What tells a bar apart from the others: the values of `varying` only ("mlp2m allreduce 0.25";
// "ws2" for a world size), joined by `separator`.
QString distinguishingLabel(const store::CellRow& c, const QStringList& varying,
                            const QString& separator = " ");

// A value as a legend names it: the model, the layer and the hook bare, a world size as
// "2 ranks" (ranksText), any other setting as key=value.
QString axisValueText(const QString& axis, const QString& value);

// "1 rank", "2 ranks": how a world size is said to a reader, in figures, tooltips and the
// trace views alike.
QString ranksText(int worldSize);

// A colour per value of the first varying axis (the hook when it varies), a marker per value of
// the second; any axis past the second shades the first axis' colour, so the legend lists each
// colour, each shade (in grey) and each marker once.
struct SeriesStyles {
    QString colourAxis;       // empty when nothing varies
    QStringList shadeAxes;    // the axes past the marker's
    QString markerAxis;       // empty when fewer than two axes vary
    QStringList colourValues; // of colourAxis, in valueLess order
    QStringList shadeValues;  // each combination of shadeAxes' values, in order
    QStringList markerValues; // of markerAxis, in valueLess order
    int colourIndex(const store::CellRow& c) const;
    int shadeIndex(const store::CellRow& c) const;
    int markerIndex(const store::CellRow& c) const;
    // Colour, shade and marker values: one series per key.
    QString seriesKey(const store::CellRow& c) const;
    // The legend entries: of a colour ("allreduce"), of a shade ("mlp2m").
    QString colourName(int colour) const;
    QString shadeName(int shade) const;
    // The value of each shade axis of c, joined ("mlp2m").
    QString shadeKey(const store::CellRow& c) const;
};
SeriesStyles seriesStyles(const std::vector<const store::CellRow*>& cells,
                          const QStringList& varying);

} // namespace commprof::report
