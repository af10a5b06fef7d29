// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The collective sweep figure: bus bandwidth against message size, log-log, one line per
// complete sweep cell (layer x world size) and collective kind. A series with no bus bandwidth
// (one rank moves nothing: nccl-tests' factor is 0) or one the backend refused is not drawn and
// named in a note under the axes; incomplete and failed sweep cells are flagged markers; with
// nothing to draw, the plot says so in its middle.

#include "plot_style.h"
#include "report/report_data.h"

#include <functional>
#include <optional>

class QCustomPlot;

namespace commprof::widgets {

// One line of the figure: a kind of one complete sweep cell.
struct SweepLine {
    const store::CellRow* cell = nullptr;
    const store::StoredSweep* sweep = nullptr;
    QString name() const; // "gloo_cpu ws2 all_reduce"
};

// The lines the figure draws, in order; *notes gets a line for each kind of series left out.
std::vector<SweepLine> sweepLines(const report::ReportData& data, QStringList* notes = nullptr);

void drawSweepBandwidth(QCustomPlot& plot, const report::ReportData& data,
                        const FigureStyle& style = {});

// Marks every line of the cell, each on a graph `mark` gives (the selection's own).
void markSweepCell(const report::ReportData& data, const QString& cellId,
                   const std::function<QCPGraph*()>& mark);

// The drawn point, or failing that the line, nearest a widget position within `radiusPx`.
struct SweepPick {
    SweepLine line;
    const analysis::SweepPoint* point = nullptr; // the line's point nearest the position
};
std::optional<SweepPick> sweepPickAt(const QCustomPlot& plot, const report::ReportData& data,
                                     QPointF pos, double radiusPx);
// The hover text of a pick: cell, kind, size, bus and algorithmic bandwidth, time.
QString describeSweepPick(const SweepPick& pick);

} // namespace commprof::widgets
