// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One frame of the TimelineView: the overview strip, rows (backgrounds, step bands, slices with
// level of detail and labels), overlays (search matches, the selection, its flow partners, the
// same slice on every rank, the measured range, the hover line), the lane names and the ruler.
// The rows are painted twice over: the scrolled rows, then the pinned ones above them.

#include "timeline/palette.h"
#include "timeline/ruler.h"
#include "timeline/slice_ref.h"
#include "timeline/slice_row.h"
#include "timeline/timeline_layout.h"

#include <QColor>
#include <QFont>
#include <QFontMetrics>
#include <QRectF>
#include <QRgb>

#include <vector>

class QPainter;

namespace commprof::widgets {

class TimelineView;

QColor toQColor(timeline::Rgb c);

class TimelinePainter {
public:
    TimelinePainter(const TimelineView& view, QPainter& painter);
    void paint();

private:
    int yOfRow(const timeline::LayoutRow& row) const { return rowsTop_ + row.top - scroll_; }
    QRectF sliceRect(timeline::SliceRef slice, bool* onScreen) const;
    // The slice outlined with the current pen, `grow` pixels out, where it is on screen.
    bool outline(timeline::SliceRef slice, double grow = 0);

    void paintRows();
    void paintRowBackground(const timeline::LayoutRow& row, int y);
    void paintStepBands(int rank, int top, int bottom);
    void paintSlices(const timeline::SliceRow& row, int rank, int y, int h, bool classLane,
                     trace::EventClass cls);
    void paintLabel(const QRectF& slice, int rank, std::uint32_t name, QColor fill);
    void paintOverlays();
    void paintSearchMatches();
    void paintSameSliceOnEveryRank();
    void paintSelection();
    void paintRange();
    void paintArrow(QPointF from, QPointF to, QColor colour);
    void paintCriticalPath();
    // The critical steps of rank index RANK, on its trace clock, in time order.
    std::vector<std::pair<double, double>> criticalSpansOf(int rank) const;
    void paintGutter();
    void paintHeader();
    void paintTicks(int base);
    // The ruler's annotations, each placed clear of the boxes already `taken`.
    void paintRangeLabel(int top, std::vector<QRectF>& taken);
    void paintClockNote(int top, std::vector<QRectF>& taken);
    void paintSkewLabel(int top, std::vector<QRectF>& taken);
    void paintHoverTime(int top, const std::vector<QRectF>& taken);
    void paintStrip(int top);
    void paintOverview();
    // Which rows the next paintRows/paintOverlays/paintGutter draw: the scrolled or the pinned.
    void enterRegion(bool pinned);

    const TimelineView& v_;
    QPainter& p_;
    QFont labelFont_;
    QFontMetrics fm_;
    int tracksLeft_;
    int tracksRight_;
    int rowsTop_;
    int rowsBottom_;
    int scroll_ = 0;
    bool pinnedRegion_ = false;
    const timeline::TimelineLayout* layout_ = nullptr;
    std::size_t firstRow_ = 0;
    std::size_t lastRow_ = 0; // one past
    timeline::Ruler ruler_;
    std::vector<QRgb> line_; // one row's pixels of slices too narrow for a rectangle
    // The row being drawn is a top-level row of a rank on the critical path: its slices inside
    // these spans are outlined, as Nsight Systems outlines the path's slices.
    std::vector<std::pair<double, double>> pathSpans_;
    int rects_ = 0;
    int labels_ = 0;
};

} // namespace commprof::widgets
