// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The collective sweep figure: bus bandwidth against message size, log-log, one line per group
// of complete sweep repeats (report/repeat_groups.h: the cells that differ in nothing but the
// repeat) and collective kind: the repeats' median busbw at each size, with whiskers from their
// min to their max, as the DDP figures draw a group; each repeat a line of its own where
// FigureStyle::eachRepeat asks. A series with no bus bandwidth (one rank moves nothing:
// nccl-tests' factor is 0) or one the backend refused is not drawn and named in a note under the
// axes; incomplete and failed sweep cells are flagged markers; with nothing to draw, the plot
// says so in its middle.

#include "plot_style.h"
#include "report/repeat_groups.h"
#include "report/report_data.h"

#include <functional>
#include <optional>

namespace commprof::widgets {

// One line of the figure: a kind of one group of repeats (of one repeat, in each-repeat mode).
struct SweepLine {
    struct Repeat {
        const store::CellRow* cell = nullptr;
        const store::StoredSweep* sweep = nullptr; // its series of the line's kind
    };
    // A drawn size: the median of the repeats' busbw there with its min and max, and the point
    // of the repeat nearest the median (spread.representative), which a click there picks.
    struct Size {
        double bytes = 0;
        report::Spread busbw;
        const analysis::SweepPoint* point = nullptr;
    };
    // The first repeat, which colours and names the line (in a SweepPick: the repeat picked).
    const store::CellRow* cell = nullptr;
    const store::StoredSweep* sweep = nullptr;
    std::vector<Repeat> repeats; // in the results' order
    std::vector<Size> sizes;     // ascending
    QString name() const;        // "gloo_cpu ws2 all_reduce"
    bool contains(const QString& cellId) const;
};

// The lines the figure draws, in order: a line per group of repeats and kind, or per repeat and
// kind where `each`; *notes gets a line for each kind of series left out.
std::vector<SweepLine> sweepLines(const report::ReportData& data, QStringList* notes = nullptr,
                                  bool each = false);

void drawSweepBandwidth(QCustomPlot& plot, const report::ReportData& data,
                        const FigureStyle& style = {});

// Marks every line the figure draws the cell in (its group's median, or its own line where the
// figure draws each repeat), each on a graph `mark` gives (the selection's own).
void markSweepCell(const QCustomPlot& plot, const report::ReportData& data, const QString& cellId,
                   const std::function<QCPGraph*()>& mark);

// The drawn point, or failing that the line, nearest a widget position within `radiusPx`: on a
// group's median, the repeat nearest the median at that size.
struct SweepPick {
    SweepLine line;                              // its cell and sweep: the repeat picked
    const analysis::SweepPoint* point = nullptr; // that repeat's point at the size
    std::size_t size = 0;                        // the size's index in line.sizes
};
std::optional<SweepPick> sweepPickAt(const QCustomPlot& plot, const report::ReportData& data,
                                     QPointF pos, double radiusPx);
// The hover text of a pick: cell, kind, size, bus and algorithmic bandwidth, time; on a group of
// repeats, their median, min and max.
QString describeSweepPick(const SweepPick& pick);

} // namespace commprof::widgets
