// SPDX-License-Identifier: GPL-3.0-or-later
#include "timeline_painter.h"

#include "timeline_view.h"

#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>
#include <span>

namespace commprof::widgets {
namespace {

using timeline::LayoutRow;
using timeline::RowKind;

constexpr int kMinLabelPx = 16;        // narrower slices carry no text
constexpr double kMinRectPx = 3.0;     // narrower slices are plotted as pixels
constexpr double kMinSelectedPx = 5.0; // a selected slice shows at least this wide
constexpr int kLabelPadding = 3;
constexpr int kMaxOutlined = 4000; // search matches outlined per frame
constexpr int kMaxArrows = 32;
constexpr int kCriticalFootPx = 5; // the critical path's bar along a rank header's foot
const QColor kCriticalLabelFill(255, 255, 255, 225); // the culprit's words over the red

const QColor kRankHeader(0xdd, 0xe2, 0xea);
const QColor kProcessHeader(0xee, 0xf0, 0xf4);
const QColor kLaneEven(0xff, 0xff, 0xff);
const QColor kLaneOdd(0xf6, 0xf7, 0xf9);
const QColor kGutter(0xf2, 0xf3, 0xf5);
const QColor kRuler(0xfa, 0xfa, 0xfb);
const QColor kGrid(0, 0, 0, 22);
const QColor kStepTint(80, 100, 200, 20);
const QColor kStepEdge(60, 70, 120, 60);
const QColor kSelection(0, 0, 0);
const QColor kMatched(0xd6, 0x24, 0x9f);
const QColor kSearchHit(0xff, 0xb0, 0x00);
const QColor kRangeFill(40, 120, 255, 38);
const QColor kRangeEdge(40, 120, 255, 170);
const QColor kFlow(0x20, 0x20, 0x20);
const QColor kNote(0xb3, 0x4d, 0x00);
constexpr int kAnnotationBand = 14; // the ruler's upper line, above the tick labels

// The first box that overlaps none taken, else the first.
QRectF firstClear(std::initializer_list<QRectF> candidates, const std::vector<QRectF>& taken) {
    for (const QRectF& c : candidates) {
        if (std::none_of(taken.begin(), taken.end(),
                         [&](const QRectF& t) { return t.intersects(c); })) {
            return c;
        }
    }
    return *candidates.begin();
}

} // namespace

QColor toQColor(timeline::Rgb c) {
    return QColor(c.r, c.g, c.b);
}

TimelinePainter::TimelinePainter(const TimelineView& view, QPainter& painter)
    : v_(view), p_(painter), labelFont_(view.font()), fm_(labelFont_),
      tracksLeft_(TimelineView::kGutter), tracksRight_(tracksLeft_ + v_.tracksWidth()) {
    labelFont_.setPixelSize(11);
    fm_ = QFontMetrics(labelFont_);
    enterRegion(false);
    ruler_ =
        timeline::makeRuler(v_.axis_, v_.originUs_, fm_.horizontalAdvance("+0000.000 ms") + 16);
}

void TimelinePainter::enterRegion(bool pinned) {
    pinnedRegion_ = pinned;
    layout_ = pinned ? &v_.pinnedLayout_ : &v_.layout_;
    rowsTop_ = pinned ? TimelineView::kHeaderHeight : v_.rowsTop();
    rowsBottom_ = pinned ? v_.rowsTop() : v_.height();
    scroll_ = pinned ? 0 : v_.scrollY();
    const auto& rows = layout_->rows();
    firstRow_ = std::min(rows.size(), layout_->firstRowFrom(scroll_));
    lastRow_ = firstRow_;
    const int bottom = scroll_ + (rowsBottom_ - rowsTop_);
    while (lastRow_ < rows.size() && rows[lastRow_].top < bottom) {
        ++lastRow_;
    }
}

void TimelinePainter::paint() {
    p_.fillRect(v_.rect(), kLaneEven);
    if (!v_.stack_ || v_.stack_->ranks.empty()) {
        p_.setPen(v_.palette().text().color());
        p_.drawText(v_.rect(), Qt::AlignCenter,
                    "Open a trace, or a cell to see all its ranks (File > Open trace)");
        return;
    }
    p_.setFont(labelFont_);
    paintRows();
    paintOverlays();
    paintGutter();
    if (v_.pinnedHeight() > 0) {
        enterRegion(true);
        paintRows();
        paintOverlays();
        paintGutter();
        // The pinned rows' floor, as a shadow over the rows scrolling under it.
        p_.fillRect(QRect(0, rowsBottom_ - 1, v_.width(), 1), QColor(0, 0, 0, 90));
        p_.fillRect(QRect(0, rowsBottom_, v_.width(), 2), QColor(0, 0, 0, 25));
        enterRegion(false);
    }
    paintHeader();
    paintOverview();
    v_.lastRects_ = rects_;
    v_.lastLabels_ = labels_;
}

void TimelinePainter::paintRows() {
    p_.save();
    p_.setClipRect(QRect(0, rowsTop_, tracksRight_, rowsBottom_ - rowsTop_));
    const auto& rows = layout_->rows();
    for (std::size_t i = firstRow_; i < lastRow_; ++i) {
        paintRowBackground(rows[i], yOfRow(rows[i]));
    }
    // Step bands behind each rank's rows, from its own steps: skew shows as shifted bands.
    for (std::size_t i = firstRow_, j = i; i < lastRow_; i = j) {
        const int rank = rows[i].rank;
        while (j < lastRow_ && rows[j].rank == rank) {
            ++j;
        }
        paintStepBands(rank, yOfRow(rows[i]), yOfRow(rows[j - 1]) + rows[j - 1].height);
    }
    p_.setPen(kGrid);
    for (const auto& t : ruler_.ticks) {
        if (t.major) {
            const double x = std::round(v_.xOfTime(t.us)) + 0.5;
            p_.drawLine(QPointF(x, rowsTop_), QPointF(x, rowsBottom_));
        }
    }
    p_.setClipRect(
        QRect(tracksLeft_, rowsTop_, tracksRight_ - tracksLeft_, rowsBottom_ - rowsTop_));
    for (std::size_t i = firstRow_; i < lastRow_; ++i) {
        const LayoutRow& row = rows[i];
        const auto& rank = *v_.stack_->ranks[std::size_t(row.rank)];
        const int y = yOfRow(row);
        if (row.kind == RowKind::ClassLane) {
            const auto& lane = rank.classLanes[std::size_t(row.group)];
            paintSlices(lane.row, row.rank, y, row.height, true, lane.cls);
        } else if (row.kind == RowKind::Slices) {
            const auto& lane = rank.groups[std::size_t(row.group)].lanes[std::size_t(row.lane)];
            if (std::size_t(row.depth) < lane.rows.size()) {
                if (v_.criticalPathShown_ && row.depth == 0) {
                    pathSpans_ = criticalSpansOf(row.rank);
                }
                paintSlices(lane.rows[std::size_t(row.depth)], row.rank, y, row.height, false,
                            trace::EventClass::NotCounted);
                pathSpans_.clear();
            }
        }
    }
    p_.restore();
}

void TimelinePainter::paintRowBackground(const LayoutRow& row, int y) {
    const int lane = row.kind == RowKind::ClassLane ? row.group : row.lane;
    const QColor bg = row.kind == RowKind::Rank      ? kRankHeader
                      : row.kind == RowKind::Process ? kProcessHeader
                      : lane % 2                     ? kLaneOdd
                                                     : kLaneEven;
    p_.fillRect(QRect(0, y, tracksRight_, row.height), bg);
    if (row.kind == RowKind::Rank || row.kind == RowKind::Process) {
        p_.fillRect(QRect(0, y + row.height - 1, tracksRight_, 1), QColor(0, 0, 0, 30));
    }
}

void TimelinePainter::paintStepBands(int rank, int top, int bottom) {
    const auto& stack = *v_.stack_;
    const auto& steps = stack.ranks[std::size_t(rank)]->steps;
    if (steps.size() < 2 && !stack.ranks[std::size_t(rank)]->summary.stepsMarked) {
        return; // one unmarked window: nothing to tell apart
    }
    // Steps narrower than this are not told apart: at that zoom bands would only be noise.
    constexpr double kMinStepPx = 6;
    const double first = stack.toTrace(std::size_t(rank), v_.axis_.startUs());
    const auto firstVisible = std::ranges::lower_bound(
        steps, first, {}, [](const trace::StepWindow& w) { return w.window.end; });
    for (std::size_t s = std::size_t(firstVisible - steps.begin()); s < steps.size(); ++s) {
        const double x0 = v_.xOfTime(stack.toDisplay(std::size_t(rank), steps[s].window.start));
        const double x1 = v_.xOfTime(stack.toDisplay(std::size_t(rank), steps[s].window.end));
        if (x0 > tracksRight_) {
            break;
        }
        if (x1 < tracksLeft_ || x1 - x0 < kMinStepPx) {
            continue;
        }
        const double l = std::max<double>(x0, tracksLeft_);
        const double r = std::min<double>(x1, tracksRight_);
        if (s % 2 == 0) {
            p_.fillRect(QRectF(l, top, r - l, bottom - top), kStepTint);
        }
        p_.setPen(kStepEdge);
        if (x0 >= tracksLeft_) {
            p_.drawLine(QPointF(std::round(x0) + 0.5, top), QPointF(std::round(x0) + 0.5, bottom));
        }
    }
}

void TimelinePainter::paintSlices(const timeline::SliceRow& fullRow, int rank, int y, int h,
                                  bool classLane, trace::EventClass cls) {
    if (fullRow.empty()) {
        return;
    }
    const double off = v_.stack_->offsetsUs[std::size_t(rank)];
    const double upp = v_.axis_.usPerPixel();
    const double a0 = v_.axis_.startUs() - off; // trace time at the left edge
    const double tEnd = v_.axis_.endUs() - off;
    const double width = v_.axis_.widthPx();
    auto px = [&](double traceUs) { return (traceUs - a0) / upp; };
    const timeline::SliceRow& row = fullRow.forResolution(upp);
    const bool byClass = v_.colouring() == TimelineView::Colouring::ByClass;
    const QRgb classFill = toQColor(timeline::classColour(cls)).rgb();
    auto fillOf = [&](std::size_t i) -> QRgb {
        return classLane ? classFill
               : byClass ? toQColor(timeline::classColour(row.classes[i])).rgb()
                         : v_.nameOf(rank, row.names[i]).colour;
    };

    // Everything narrower than kMinRectPx goes into one line of pixels, drawn once stretched
    // to the row's height: thousands of tiny slices cost one image, not thousands of fills.
    // Slices under a pixel wide are merged per column (the first one's colour shows).
    const int w = int(width);
    line_.assign(std::size_t(w) + 1, 0);
    int dirtyFrom = w;
    int dirtyTo = -1;
    auto plot = [&](double from, double to, QRgb colour) {
        const int c0 = std::clamp(int(std::floor(from)), 0, w);
        const int c1 = std::clamp(std::max(c0 + 1, int(std::ceil(to))), 0, w);
        for (int c = c0; c < c1; ++c) {
            line_[std::size_t(c)] = colour;
        }
        dirtyFrom = std::min(dirtyFrom, c0);
        dirtyTo = std::max(dirtyTo, c1);
        ++rects_;
    };
    std::size_t i = row.firstEndingAfter(a0);
    const std::size_t n = row.size();
    std::size_t span = 0; // the first path span that may still hold a slice (both in time order)
    while (i < n && row.starts[i] < tEnd) {
        const double x0 = px(row.starts[i]);
        const double x1 = px(row.ends[i]);
        if (x1 - x0 >= kMinRectPx) {
            const double l = std::max(x0, -2.0);
            const double r = std::min(x1, width + 2.0);
            const QColor fill(fillOf(i));
            // A one-pixel gap at the end keeps neighbours of one colour apart.
            const QRectF rect(tracksLeft_ + l, y + 1, std::max(1.0, r - l - 1), h - 2);
            p_.fillRect(rect, fill);
            ++rects_;
            while (span < pathSpans_.size() && pathSpans_[span].second <= row.starts[i]) {
                ++span;
            }
            if (span < pathSpans_.size() && pathSpans_[span].first < row.ends[i]) {
                p_.setPen(QPen(TimelineView::criticalPathColour(), 2));
                p_.drawRect(rect.adjusted(1, 1, -1, -1));
            }
            if (!classLane && rect.width() >= kMinLabelPx &&
                row.events[i] != timeline::kMergedSlices) {
                paintLabel(rect, rank, row.names[i], fill);
            }
            ++i;
        } else if (x1 - x0 >= 1.0) {
            plot(x0, x1, fillOf(i));
            ++i;
        } else {
            const double column = std::floor(std::max(x0, 0.0));
            const std::size_t j =
                std::max(i + 1, row.firstStartingFrom(a0 + (column + 1) * upp, i + 1));
            plot(column, std::max(column + 1, px(row.ends[j - 1])), fillOf(i));
            i = j;
        }
    }
    if (dirtyTo > dirtyFrom) {
        const QImage strip(reinterpret_cast<const uchar*>(line_.data() + dirtyFrom),
                           dirtyTo - dirtyFrom, 1, QImage::Format_ARGB32_Premultiplied);
        p_.drawImage(QRectF(tracksLeft_ + dirtyFrom, y + 1, dirtyTo - dirtyFrom, h - 2), strip);
    }
}

void TimelinePainter::paintLabel(const QRectF& slice, int rank, std::uint32_t name, QColor fill) {
    const double avail = slice.width() - 2 * kLabelPadding;
    if (avail < kMinLabelPx - 2 * kLabelPadding) {
        return;
    }
    auto& n = v_.nameOf(rank, name);
    if (n.advance < 0) {
        n.advance = float(fm_.horizontalAdvance(n.text));
    }
    QString text = n.text;
    if (n.advance > avail) {
        text = fm_.elidedText(n.text, Qt::ElideRight, int(avail));
        if (text.size() <= 1) {
            return;
        }
    }
    const timeline::Rgb rgb{std::uint8_t(fill.red()), std::uint8_t(fill.green()),
                            std::uint8_t(fill.blue())};
    p_.setPen(toQColor(timeline::textColourOn(rgb)));
    const double baseline = slice.top() + (slice.height() + fm_.ascent() - fm_.descent()) / 2.0;
    p_.drawText(QPointF(slice.left() + kLabelPadding, baseline), text);
    ++labels_;
}

QRectF TimelinePainter::sliceRect(timeline::SliceRef slice, bool* onScreen) const {
    *onScreen = false;
    const auto& stack = *v_.stack_;
    if (!slice.valid() || std::size_t(slice.rank) >= stack.ranks.size()) {
        return {};
    }
    const auto& rank = *stack.ranks[std::size_t(slice.rank)];
    if (slice.event >= rank.places.size()) {
        return {};
    }
    const std::size_t r = layout_->rowOfSlice(slice.rank, rank.places[slice.event]);
    if (r >= layout_->rows().size()) {
        return {};
    }
    const LayoutRow& row = layout_->rows()[r];
    const auto& e = rank.trace.events[slice.event];
    const double x0 = v_.xOfTime(stack.toDisplay(std::size_t(slice.rank), e.startUs));
    const double x1 = v_.xOfTime(stack.toDisplay(std::size_t(slice.rank), e.endUs));
    const int y = yOfRow(row);
    *onScreen = y + row.height > rowsTop_ && y < rowsBottom_ && x1 >= tracksLeft_ - 1 &&
                x0 <= tracksRight_ + 1;
    const double l = std::max<double>(x0, tracksLeft_ - 3);
    const double rr = std::min<double>(std::max(x1, x0 + 1), tracksRight_ + 3);
    return QRectF(l, y + 0.5, std::max(1.0, rr - l), row.height - 1);
}

void TimelinePainter::paintOverlays() {
    p_.save();
    p_.setClipRect(
        QRect(tracksLeft_, rowsTop_, tracksRight_ - tracksLeft_, rowsBottom_ - rowsTop_));
    p_.setBrush(Qt::NoBrush);
    if (v_.matches_ && v_.matches_->count() > 0) {
        paintSearchMatches();
    }
    if (v_.matched_.slices.size() > 1) {
        paintSameSliceOnEveryRank();
    }
    if (v_.selected_.valid()) {
        paintSelection();
    }
    if (v_.criticalPathShown_) {
        paintCriticalPath();
    }
    p_.restore();
    if (v_.range_) {
        paintRange();
    }
}

// Every search match in view outlined (up to kMaxOutlined), the current one thicker.
void TimelinePainter::paintSearchMatches() {
    const auto& m = *v_.matches_;
    auto it = std::lower_bound(m.startsUs.begin(), m.startsUs.end(),
                               v_.axis_.startUs() - (v_.axis_.endUs() - v_.axis_.startUs()));
    int drawn = 0;
    p_.setPen(QPen(kSearchHit, 1));
    for (; it != m.startsUs.end() && *it <= v_.axis_.endUs() && drawn < kMaxOutlined; ++it) {
        drawn += int(outline(m.slices[std::size_t(it - m.startsUs.begin())]));
    }
    if (v_.currentMatch_ < m.count()) {
        p_.setPen(QPen(kSearchHit, 3));
        outline(m.slices[v_.currentMatch_], 1);
    }
}

bool TimelinePainter::outline(timeline::SliceRef slice, double grow) {
    bool on = false;
    const QRectF r = sliceRect(slice, &on);
    if (on) {
        p_.drawRect(r.adjusted(-grow, -grow, grow, grow));
    }
    return on;
}

// The selected slice's counterparts on the other ranks, and each rank's start across the rows.
void TimelinePainter::paintSameSliceOnEveryRank() {
    p_.setPen(QPen(kMatched, 2));
    for (const auto& s : v_.matched_.slices) {
        outline(s);
    }
    // Each rank's start, across the rows, so the skew reads at a glance.
    p_.setPen(QPen(kMatched, 1, Qt::DashLine));
    for (double us : v_.matched_.startsUs) {
        const double x = std::round(v_.xOfTime(us)) + 0.5;
        p_.drawLine(QPointF(x, rowsTop_), QPointF(x, rowsBottom_));
    }
}

// The selected slice framed, with arrows to its flow partners (launch to device).
void TimelinePainter::paintSelection() {
    bool on = false;
    const QRectF r = sliceRect(v_.selected_, &on);
    const auto& rank = *v_.stack_->ranks[std::size_t(v_.selected_.rank)];
    const auto partners = rank.flows.partners(rank.trace, v_.selected_.event);
    for (const auto& partner :
         std::span(partners).first(std::min<std::size_t>(partners.size(), kMaxArrows))) {
        bool pOn = false;
        const QRectF pr = sliceRect({v_.selected_.rank, partner.event}, &pOn);
        if (pr.isNull()) {
            continue;
        }
        // Launch to device: from the call's start to the kernel's start.
        const QRectF& launch = partner.isDevice ? r : pr;
        const QRectF& device = partner.isDevice ? pr : r;
        const QPointF from(launch.left(), launch.center().y());
        const QPointF to(device.left(), device.top() <= from.y() ? device.bottom() : device.top());
        paintArrow(from, to, kFlow);
        if (pOn) {
            p_.setPen(QPen(kFlow, 1, Qt::DashLine));
            p_.drawRect(pr);
        }
    }
    if (on) {
        QRectF box = r;
        if (box.width() < kMinSelectedPx) {
            // Narrower than its outline, the slice would read as the outline's black, or as
            // another slice's colour: at any zoom it keeps its own inside the frame.
            const double mid = box.center().x();
            box =
                QRectF(mid - kMinSelectedPx / 2, box.top() + 0.5, kMinSelectedPx, box.height() - 1);
            const auto& e = rank.trace.events[v_.selected_.event];
            const bool byClass = v_.colouring() == TimelineView::Colouring::ByClass;
            p_.fillRect(box, byClass ? toQColor(timeline::classColour(e.cls))
                                     : QColor(v_.nameOf(v_.selected_.rank, e.name).colour));
        }
        p_.setPen(QPen(kSelection, 2));
        p_.drawRect(box.adjusted(-0.5, -0.5, 0.5, 0.5));
    }
}

// The measured range: shaded across the rows, with its two edges.
void TimelinePainter::paintRange() {
    const double x0 = std::max<double>(v_.xOfTime(v_.range_->first), tracksLeft_);
    const double x1 = std::min<double>(v_.xOfTime(v_.range_->second), tracksRight_);
    if (x1 >= x0) {
        p_.fillRect(QRectF(x0, rowsTop_, std::max(1.0, x1 - x0), rowsBottom_ - rowsTop_),
                    kRangeFill);
        p_.setPen(kRangeEdge);
        p_.drawLine(QPointF(x0, rowsTop_), QPointF(x0, rowsBottom_));
        p_.drawLine(QPointF(x1, rowsTop_), QPointF(x1, rowsBottom_));
    }
}

void TimelinePainter::paintCriticalPath() {
    const auto& stack = *v_.stack_;
    const auto& rows = layout_->rows();
    const QColor colour = TimelineView::criticalPathColour();
    for (std::size_t i = firstRow_; i < lastRow_; ++i) {
        const LayoutRow& row = rows[i];
        if (row.kind != timeline::RowKind::Rank) {
            continue;
        }
        const std::size_t r = std::size_t(row.rank);
        const int number = stack.ranks[r]->rank;
        const int y = yOfRow(row);
        const auto x = [&](double traceUs) { return v_.xOfTime(stack.toDisplay(r, traceUs)); };
        for (const analysis::CriticalStep& c : v_.criticalPath_) {
            if (c.rank != number || x(c.endUs) < tracksLeft_ || x(c.startUs) > tracksRight_) {
                continue;
            }
            // Compute and the optimizer as a bar along the header's foot; what the backward
            // waited for after its compute (the culprit's cost) across the whole header.
            const int foot = y + row.height - kCriticalFootPx;
            const auto span = [&](double from, double to, int top, int height) {
                const double x0 = x(from), x1 = x(to);
                p_.fillRect(QRectF(x0, top, std::max(1.0, x1 - x0), height), colour);
            };
            span(c.startUs, c.computeEndUs, foot, kCriticalFootPx);
            span(c.computeEndUs, c.backwardEndUs, y + 1, row.height - 2);
            span(c.backwardEndUs, c.endUs, foot, kCriticalFootPx);
            // The culprit over the step, whole: the longest wording that fits (at fit-to-window
            // a short one), never a cut one; the tooltip and the details panel say it all.
            const double left = std::max<double>(x(c.startUs), tracksLeft_) + kLabelPadding;
            const double right = std::min<double>(x(c.endUs), tracksRight_) - kLabelPadding;
            const QString last = c.alone ? "alone" : "last";
            const QString wordings[] = {
                QString("step %1: %2").arg(c.step).arg(c.culprit),
                QString("step %1: rank %2 %3").arg(c.step).arg(c.rank).arg(last),
                QString("rank %1 %2").arg(c.rank).arg(last)};
            for (const QString& text : wordings) {
                const int w = fm_.horizontalAdvance(text);
                if (w <= right - left) {
                    const QRectF box(left - kLabelPadding, y + 1, w + 2 * kLabelPadding,
                                     row.height - kCriticalFootPx - 2);
                    p_.fillRect(box, kCriticalLabelFill);
                    p_.setPen(colour.darker(160));
                    p_.drawText(box, Qt::AlignCenter, text);
                    break;
                }
            }
        }
    }
}

std::vector<std::pair<double, double>> TimelinePainter::criticalSpansOf(int rank) const {
    std::vector<std::pair<double, double>> out;
    const int number = v_.stack_->ranks[std::size_t(rank)]->rank;
    for (const analysis::CriticalStep& c : v_.criticalPath_) {
        if (c.rank == number) {
            out.emplace_back(c.startUs, c.endUs);
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

void TimelinePainter::paintArrow(QPointF from, QPointF to, QColor colour) {
    p_.save();
    p_.setRenderHint(QPainter::Antialiasing);
    p_.setPen(QPen(colour, 1.5));
    QPainterPath path(from);
    const double dx = std::max(12.0, std::abs(to.x() - from.x()) / 3);
    path.cubicTo(from + QPointF(dx, 0), to - QPointF(0, (to.y() - from.y()) / 2), to);
    p_.drawPath(path);
    // The head points along the curve's last tangent (vertical).
    const double dir = to.y() >= from.y() ? -1 : 1;
    QPolygonF head;
    head << to << to + QPointF(-4, 7 * dir) << to + QPointF(4, 7 * dir);
    p_.setBrush(colour);
    p_.drawPolygon(head);
    p_.restore();
}

void TimelinePainter::paintGutter() {
    const auto& rows = layout_->rows();
    p_.save();
    p_.setClipRect(QRect(0, rowsTop_, tracksLeft_, rowsBottom_ - rowsTop_));
    p_.fillRect(QRect(0, rowsTop_, tracksLeft_, rowsBottom_ - rowsTop_), kGutter);
    QFont bold = labelFont_;
    bold.setBold(true);
    const QColor text = v_.palette().text().color();
    const QColor dim(0x60, 0x66, 0x70);
    for (std::size_t i = firstRow_; i < lastRow_; ++i) {
        const LayoutRow& row = rows[i];
        const auto& rank = *v_.stack_->ranks[std::size_t(row.rank)];
        const int y = yOfRow(row);
        QRect box(4, y, tracksLeft_ - 10, row.height);
        const bool header = row.kind == RowKind::Rank || row.kind == RowKind::Process;
        p_.setFont(header ? bold : labelFont_);
        p_.setPen(text);
        switch (row.kind) {
        case RowKind::Rank: {
            p_.fillRect(QRect(0, y, tracksLeft_, row.height), kRankHeader);
            const QString arrow = v_.collapsed_.rankCollapsed(row.rank) ? "▸ " : "▾ ";
            const QString title =
                arrow + QString("rank %1  ").arg(rank.rank) + QFileInfo(rank.path).fileName();
            p_.drawText(box, Qt::AlignLeft | Qt::AlignVCenter,
                        QFontMetrics(bold).elidedText(title, Qt::ElideRight, box.width()));
            break;
        }
        case RowKind::Process: {
            p_.fillRect(QRect(0, y, tracksLeft_, row.height), kProcessHeader);
            const auto& g = rank.groups[std::size_t(row.group)];
            const QString arrow = v_.collapsed_.groupCollapsed(row.rank, row.group) ? "▸ " : "▾ ";
            box.adjust(10, 0, 0, 0);
            const int detailWidth = fm_.horizontalAdvance(g.detail) + 6;
            p_.drawText(box.adjusted(0, 0, -detailWidth, 0), Qt::AlignLeft | Qt::AlignVCenter,
                        QFontMetrics(bold).elidedText(arrow + g.title, Qt::ElideRight,
                                                      box.width() - detailWidth));
            p_.setFont(labelFont_);
            p_.setPen(dim);
            p_.drawText(box, Qt::AlignRight | Qt::AlignVCenter, g.detail);
            break;
        }
        case RowKind::ClassLane: {
            const auto& lane = rank.classLanes[std::size_t(row.group)];
            box.adjust(14, 0, 0, 0);
            p_.fillRect(QRect(box.left(), y + 3, 8, row.height - 6),
                        toQColor(timeline::classColour(lane.cls)));
            p_.drawText(box.adjusted(12, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter, lane.title);
            break;
        }
        case RowKind::Slices:
            if (row.depth == 0) {
                const auto& lane = rank.groups[std::size_t(row.group)].lanes[std::size_t(row.lane)];
                // Out of its rank's rows: say whose it is, and mark it pinned.
                const QString title = pinnedRegion_
                                          ? QString("rank %1 · %2").arg(rank.rank).arg(lane.title)
                                          : lane.title;
                if (pinnedRegion_) {
                    p_.fillRect(QRect(4, y + 5, 6, row.height - 10), QColor(0x40, 0x70, 0xd0));
                }
                box.adjust(pinnedRegion_ ? 10 : 22, 0, 0, 0);
                p_.drawText(box, Qt::AlignLeft | Qt::AlignVCenter,
                            fm_.elidedText(title, Qt::ElideRight, box.width()));
            }
            break;
        }
    }
    p_.restore();
    p_.fillRect(QRect(tracksLeft_ - 1, rowsTop_, 1, rowsBottom_ - rowsTop_), QColor(0, 0, 0, 60));
}

void TimelinePainter::paintHeader() {
    const int top = TimelineView::kRulerTop;
    p_.fillRect(QRect(0, top, v_.width(), TimelineView::kRulerHeight), kRuler);
    p_.setFont(labelFont_);
    // The gutter's corner: what the labels count from.
    p_.setPen(QColor(0x50, 0x55, 0x60));
    const QString corner = v_.originText_ + (ruler_.hasBase ? "\n+ " + ruler_.baseLabel : "");
    p_.drawText(QRect(6, top + 1, tracksLeft_ - 12, TimelineView::kRulerHeight - 2),
                Qt::AlignLeft | Qt::AlignVCenter, corner);
    p_.save();
    p_.setClipRect(QRect(tracksLeft_, top, tracksRight_ - tracksLeft_,
                         TimelineView::kRulerHeight + TimelineView::kStripHeight));
    // Tick labels sit in the lower half; the upper half carries the annotations (the range,
    // the hover time, the skew, the clock note), so the two never overlap.
    paintTicks(top + TimelineView::kRulerHeight - 1);
    // The annotations' boxes, so that the hover time finds a place clear of them.
    std::vector<QRectF> taken;
    paintRangeLabel(top, taken);
    paintClockNote(top, taken);
    paintSkewLabel(top, taken);
    p_.restore();
    p_.fillRect(QRect(0, top + TimelineView::kRulerHeight - 1, v_.width(), 1), QColor(0, 0, 0, 60));
    paintStrip(TimelineView::kStripTop);
    paintHoverTime(top, taken);
    p_.fillRect(QRect(0, TimelineView::kHeaderHeight - 1, v_.width(), 1), QColor(0, 0, 0, 60));
}

// A tick per ruler step down from `base`, the major ones labelled.
void TimelinePainter::paintTicks(int base) {
    const QColor text = v_.palette().text().color();
    for (const auto& t : ruler_.ticks) {
        const double x = std::round(v_.xOfTime(t.us)) + 0.5;
        p_.setPen(t.major ? text : QColor(0x90, 0x90, 0x98));
        p_.drawLine(QPointF(x, base - (t.major ? 14 : 4)), QPointF(x, base));
        if (t.major) {
            p_.setPen(text);
            p_.drawText(QPointF(x + 3, base - 4), t.label);
        }
    }
}

// The measured range as a bar over its span, its length in a box at its middle.
void TimelinePainter::paintRangeLabel(int top, std::vector<QRectF>& taken) {
    v_.lastRangeLabel_ = {};
    if (!v_.range_) {
        return;
    }
    const double x0 = v_.xOfTime(v_.range_->first);
    const double x1 = v_.xOfTime(v_.range_->second);
    const QString label = timeline::formatDuration(v_.range_->second - v_.range_->first);
    const QRectF bar(x0, top + 1, std::max(1.0, x1 - x0), kAnnotationBand - 1);
    p_.fillRect(bar, QColor(40, 120, 255, 60));
    const int w = fm_.horizontalAdvance(label) + 8;
    const QRectF box(std::max<double>(tracksLeft_, bar.center().x() - w / 2.0), top + 1, w,
                     kAnnotationBand - 1);
    p_.fillRect(box, QColor(40, 120, 255));
    p_.setPen(Qt::white);
    p_.drawText(box, Qt::AlignCenter, label);
    taken.push_back(box);
    v_.lastRangeLabel_ = box.toAlignedRect();
}

// How the ranks' clocks were aligned, at the right end, in at most half the ruler.
void TimelinePainter::paintClockNote(int top, std::vector<QRectF>& taken) {
    const auto& note = v_.stack_->clocks.note;
    if (note.isEmpty()) {
        return;
    }
    const QString shown = fm_.elidedText(note, Qt::ElideRight, (tracksRight_ - tracksLeft_) / 2);
    const int w = fm_.horizontalAdvance(shown) + 10;
    const QRect box(tracksRight_ - w - 2, top + 1, w, kAnnotationBand - 1);
    p_.fillRect(box, QColor(0xff, 0xf1, 0xdc));
    p_.setPen(kNote);
    p_.drawText(box, Qt::AlignCenter, shown);
    taken.push_back(box);
}

// A bracket from the first rank's start of the matched slice to the last's, and its skew.
void TimelinePainter::paintSkewLabel(int top, std::vector<QRectF>& taken) {
    v_.lastSkewLabel_ = {};
    if (v_.matched_.slices.size() <= 1) {
        return;
    }
    const int band = kAnnotationBand;
    const auto [lo, hi] =
        std::minmax_element(v_.matched_.startsUs.begin(), v_.matched_.startsUs.end());
    const double x0 = v_.xOfTime(*lo);
    const double x1 = std::max(x0 + 1, v_.xOfTime(*hi));
    const int y = top + band - 1;
    p_.setPen(QPen(kMatched, 2));
    p_.drawLine(QPointF(x0, y), QPointF(x1, y));
    p_.drawLine(QPointF(x0, y - 4), QPointF(x0, y + 1));
    p_.drawLine(QPointF(x1, y - 4), QPointF(x1, y + 1));
    const QString label = "skew " + timeline::formatDuration(v_.matched_.skewUs);
    const int w = fm_.horizontalAdvance(label) + 2;
    // After the bracket, else before it, else down over the tick labels: never over the
    // range's label or the clock note, which were placed first.
    auto within = [&](double left, double y) {
        return QRectF(std::clamp(left, double(tracksLeft_), double(tracksRight_ - w)), y, w,
                      band - 1);
    };
    const QRectF box =
        firstClear({within(x1 + 4, top + 1), within(x0 - 4 - w, top + 1),
                    within(x1 + 4, top + band + 1), within(x0 - 4 - w, top + band + 1)},
                   taken);
    if (box.top() > top + 1) {
        p_.fillRect(box, kRuler); // legible over the tick labels it covers
    }
    p_.setPen(kMatched);
    p_.drawText(box, Qt::AlignLeft | Qt::AlignVCenter, label);
    taken.push_back(box);
    v_.lastSkewLabel_ = box.toAlignedRect();
}

// The hover line down the rows, and its time in a box clear of the other annotations.
void TimelinePainter::paintHoverTime(int top, const std::vector<QRectF>& taken) {
    v_.lastHoverLabel_ = {};
    if (!v_.hoverX_) {
        return;
    }
    const double x = std::round(*v_.hoverX_) + 0.5;
    p_.setPen(QColor(0, 0, 0, 110));
    p_.drawLine(QPointF(x, top), QPointF(x, v_.height()));
    const double us = v_.axis_.toUs(*v_.hoverX_ - tracksLeft_);
    const QString label =
        timeline::formatInUnit(us - v_.originUs_, ruler_.unit, ruler_.decimals + 2);
    const int w = fm_.horizontalAdvance(label) + 8;
    auto boxAt = [&](double left, int y) {
        return QRectF(std::clamp(left, double(tracksLeft_), double(tracksRight_ - w)), y, w, 13);
    };
    // Right of the line, else left of it, else down over the tick labels: never over the
    // skew, the range or the clock note.
    const QRectF box = firstClear(
        {boxAt(x + 4, top + 1), boxAt(x - 4 - w, top + 1), boxAt(x + 4, top + kAnnotationBand + 1)},
        taken);
    p_.fillRect(box, QColor(0x30, 0x30, 0x38));
    p_.setPen(Qt::white);
    p_.drawText(box, Qt::AlignCenter, label);
    v_.lastHoverLabel_ = box.toAlignedRect();
}

void TimelinePainter::paintOverview() {
    const int h = TimelineView::kOverviewHeight;
    p_.fillRect(QRect(0, 0, v_.width(), h), QColor(0xf7, 0xf8, 0xfa));
    const auto& stack = *v_.stack_;
    p_.setFont(labelFont_);
    p_.setPen(QColor(0x50, 0x55, 0x60));
    p_.drawText(QRect(6, 0, tracksLeft_ - 12, h), Qt::AlignLeft | Qt::AlignVCenter,
                QString("whole trace, %1\nper rank: comp., comm., bookk., mem.")
                    .arg(timeline::formatDuration(stack.endUs)));
    const QImage& image = v_.overviewImage();
    const int n = int(stack.ranks.size());
    const int inner = h - 4;
    if (!image.isNull() && n > 0) {
        // Each rank a band of its class rows; at many ranks bands shrink to a pixel.
        const int rowsPerRank = int(timeline::kOverviewClasses);
        for (int r = 0; r < n; ++r) {
            const int y0 = 2 + r * inner / n;
            const int y1 = 2 + (r + 1) * inner / n;
            if (y1 <= y0) {
                continue;
            }
            p_.drawImage(QRect(tracksLeft_, y0, image.width(), y1 - y0), image,
                         QRect(0, r * rowsPerRank, image.width(), rowsPerRank));
        }
    }
    const double x0 = std::clamp(v_.overviewXOfTime(v_.axis_.startUs()), double(tracksLeft_),
                                 double(tracksRight_));
    const double x1 =
        std::clamp(v_.overviewXOfTime(v_.axis_.endUs()), double(tracksLeft_), double(tracksRight_));
    const QColor dim(0x20, 0x28, 0x40, 45);
    p_.fillRect(QRectF(tracksLeft_, 0, x0 - tracksLeft_, h), dim);
    p_.fillRect(QRectF(x1, 0, tracksRight_ - x1, h), dim);
    const QRectF window(x0, 1, std::max(2.0, x1 - x0), h - 2);
    p_.setPen(QPen(QColor(40, 120, 255), 2));
    p_.setBrush(Qt::NoBrush);
    p_.drawRect(window.adjusted(1, 0, -1, 0));
    p_.fillRect(QRect(tracksLeft_ - 1, 0, 1, h), QColor(0, 0, 0, 60));
    p_.fillRect(QRect(0, h - 1, v_.width(), 1), QColor(0, 0, 0, 90));
}

void TimelinePainter::paintStrip(int top) {
    const int h = TimelineView::kStripHeight;
    p_.fillRect(QRect(0, top, v_.width(), h), QColor(0xf4, 0xf5, 0xf7));
    p_.setPen(QColor(0x50, 0x55, 0x60));
    const auto& stack = *v_.stack_;
    const int focus = std::clamp(v_.focusRank_, 0, int(stack.ranks.size()) - 1);
    const auto& rank = *stack.ranks[std::size_t(focus)];
    p_.drawText(QRect(6, top, tracksLeft_ - 12, h), Qt::AlignLeft | Qt::AlignVCenter,
                stack.ranks.size() > 1 ? QString("steps of rank %1").arg(rank.rank)
                                       : QString("steps"));
    p_.save();
    p_.setClipRect(QRect(tracksLeft_, top, tracksRight_ - tracksLeft_, h));
    double lastX = -1;
    for (std::size_t s = 0; s < rank.steps.size(); ++s) {
        const double x0 =
            v_.xOfTime(stack.toDisplay(std::size_t(focus), rank.steps[s].window.start));
        const double x1 = v_.xOfTime(stack.toDisplay(std::size_t(focus), rank.steps[s].window.end));
        // One band per pixel column at most, however many steps share it.
        if (x1 < tracksLeft_ || x0 > tracksRight_ || std::floor(x0) <= lastX) {
            continue;
        }
        lastX = std::floor(x0);
        const QRectF band(x0, top + 2, std::max(1.0, x1 - x0 - 1), h - 6);
        p_.fillRect(band, s % 2 ? QColor(0xdc, 0xe3, 0xf5) : QColor(0xc8, 0xd3, 0xf0));
        const QString label = rank.summary.stepsMarked ? QString("step %1").arg(rank.steps[s].step)
                                                       : QString("whole trace (no step markers)");
        const QRectF visible =
            band.intersected(QRectF(tracksLeft_, top, tracksRight_ - tracksLeft_, h));
        if (visible.width() > fm_.horizontalAdvance(label) + 6) {
            p_.setPen(QColor(0x20, 0x28, 0x40));
            p_.drawText(visible, Qt::AlignCenter, label);
        }
    }
    // Search matches as ticks along the strip's foot, one per pixel column at most.
    if (v_.matches_ && v_.matches_->count() > 0) {
        const auto& starts = v_.matches_->startsUs;
        const double upp = v_.axis_.usPerPixel();
        auto it = std::lower_bound(starts.begin(), starts.end(), v_.axis_.startUs());
        while (it != starts.end() && *it <= v_.axis_.endUs()) {
            const double column = std::floor(v_.axis_.toPixel(*it));
            p_.fillRect(QRectF(tracksLeft_ + column, top + h - 4, 2, 4), kSearchHit);
            it = std::lower_bound(it + 1, starts.end(), v_.axis_.startUs() + (column + 1) * upp);
        }
    }
    p_.restore();
}

} // namespace commprof::widgets
