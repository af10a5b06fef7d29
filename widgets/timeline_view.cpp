#include "timeline_view.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace commprof::widgets {
namespace {

QColor classColour(trace::EventClass c) {
    switch (c) {
    case trace::EventClass::Compute:
        return QColor(31, 119, 180);
    case trace::EventClass::Communication:
        return QColor(255, 127, 14);
    case trace::EventClass::Bookkeeping:
        return QColor(44, 160, 44);
    case trace::EventClass::NotCounted:
        break;
    }
    return QColor(150, 150, 150);
}

QString formatUs(double us) {
    if (us >= 1e6) {
        return QString::number(us / 1e6, 'f', 3) + " s";
    }
    if (us >= 1e3) {
        return QString::number(us / 1e3, 'f', 3) + " ms";
    }
    return QString::number(us, 'f', 3) + " µs";
}

} // namespace

TimelineView::TimelineView(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setMinimumHeight(120);
    setFocusPolicy(Qt::StrongFocus);
}

void TimelineView::setData(std::shared_ptr<const timeline::TimelineData> data) {
    data_ = std::move(data);
    selected_ = -1;
    axis_ = timeline::TimeAxis(data_ ? data_->startUs : 0, data_ ? data_->endUs : 1,
                               std::max(1, width() - kGutter));
    setMinimumHeight(kRuler + (data_ ? int(data_->lanes.size()) : 0) * kLaneHeight + 4);
    update();
}

void TimelineView::setVisibleRange(double startUs, double endUs) {
    axis_ = timeline::TimeAxis(startUs, endUs, std::max(1, width() - kGutter));
    update();
}

void TimelineView::zoomAt(double factor, double xPx) {
    axis_.zoom(factor, xPx - kGutter);
    if (data_) {
        axis_.clamp(data_->startUs, data_->endUs);
    }
    update();
}

void TimelineView::resizeEvent(QResizeEvent*) {
    axis_.setWidth(std::max(1, width() - kGutter));
}

QPoint TimelineView::pointOf(int lane, double us) const {
    return QPoint(kGutter + int(std::lround(axis_.toPixel(us))),
                  kRuler + lane * kLaneHeight + kLaneHeight / 2);
}

int TimelineView::drawLane(QPainter& p, const timeline::Lane& lane, int y,
                           const QColor& colour) const {
    const double visStart = axis_.startUs();
    const double visEnd = axis_.endUs();
    const int w = axis_.widthPx();
    int rects = 0;
    double runStart = 0, runEnd = -1;
    auto flush = [&] {
        if (runEnd >= runStart) {
            const int x0 = int(std::floor(std::max(0.0, runStart)));
            const int x1 = int(std::ceil(std::min(double(w), runEnd)));
            p.fillRect(QRect(kGutter + x0, y + 2, std::max(1, x1 - x0), kLaneHeight - 4), colour);
            ++rects;
        }
    };
    std::size_t i = lane.firstOverlapping(visStart);
    const std::size_t n = lane.spans.size();
    while (i < n && lane.spans[i].start < visEnd) {
        const double px0 = axis_.toPixel(lane.spans[i].start);
        const double column = std::floor(std::max(px0, 0.0));
        // Every span starting in this pixel column is drawn by one rectangle: jump past them,
        // extending the run to the furthest end among them.
        const double nextColumnUs = axis_.toUs(column + 1);
        const auto next =
            std::lower_bound(lane.spans.begin() + long(i), lane.spans.end(), nextColumnUs,
                             [](const trace::Span& s, double t) { return s.start < t; });
        const std::size_t j = std::max<std::size_t>(i + 1, std::size_t(next - lane.spans.begin()));
        const double px1 = axis_.toPixel(lane.maxEndPrefix[j - 1]);
        if (runEnd >= runStart && column <= runEnd + 1) {
            runEnd = std::max(runEnd, px1);
        } else {
            flush();
            runStart = column;
            runEnd = std::max(px1, column + 1);
        }
        i = j;
    }
    flush();
    return rects;
}

void TimelineView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    lastRects_ = 0;
    if (!data_) {
        p.drawText(rect(), Qt::AlignCenter, "Open a trace to see its timeline");
        return;
    }
    const int w = axis_.widthPx();
    // Step windows, shaded alternately and labelled on the ruler.
    for (std::size_t s = 0; s < data_->steps.size(); ++s) {
        const auto& step = data_->steps[s];
        const double x0 = std::max(0.0, axis_.toPixel(step.window.start));
        const double x1 = std::min(double(w), axis_.toPixel(step.window.end));
        if (x1 <= 0 || x0 >= w) {
            continue;
        }
        p.fillRect(QRectF(kGutter + x0, 0, x1 - x0, height()),
                   s % 2 ? QColor(240, 240, 250) : QColor(250, 246, 236));
        p.setPen(Qt::darkGray);
        p.drawText(QRectF(kGutter + x0 + 3, 2, std::max(0.0, x1 - x0 - 3), kRuler - 4),
                   Qt::AlignLeft | Qt::AlignVCenter, QString("step %1").arg(step.step));
    }
    int y = kRuler;
    for (const auto& lane : data_->lanes) {
        if (y > height()) {
            break;
        }
        p.setPen(palette().text().color());
        p.drawText(QRect(4, y, kGutter - 8, kLaneHeight), Qt::AlignLeft | Qt::AlignVCenter,
                   lane.title);
        lastRects_ +=
            drawLane(p, lane, y, lane.classLane ? classColour(lane.cls) : QColor(110, 110, 130));
        y += kLaneHeight;
    }
    if (selected_ >= 0) {
        const auto& e = data_->trace.events[std::size_t(selected_)];
        p.setPen(QPen(Qt::red, 2));
        const double x0 = axis_.toPixel(e.startUs), x1 = axis_.toPixel(e.endUs);
        p.drawRect(QRectF(kGutter + x0, kRuler, std::max(2.0, x1 - x0), y - kRuler));
    }
    p.setPen(Qt::gray);
    p.drawLine(kGutter, 0, kGutter, height());
    p.drawText(QRect(4, 2, kGutter - 8, kRuler - 4), Qt::AlignLeft | Qt::AlignVCenter,
               formatUs(axis_.endUs() - axis_.startUs()) + " shown");
}

std::optional<TimelineView::Hit> TimelineView::hitAt(QPoint pt) const {
    if (!data_ || pt.x() < kGutter || pt.y() < kRuler) {
        return std::nullopt;
    }
    const int laneIndex = (pt.y() - kRuler) / kLaneHeight;
    if (laneIndex >= int(data_->lanes.size())) {
        return std::nullopt;
    }
    const auto& lane = data_->lanes[std::size_t(laneIndex)];
    const double t = axis_.toUs(pt.x() - kGutter);
    const double tol = axis_.usPerPixel();
    std::optional<Hit> best;
    for (std::size_t i = lane.firstOverlapping(t - tol);
         i < lane.spans.size() && lane.spans[i].start <= t + tol; ++i) {
        if (lane.spans[i].end >= t - tol) {
            // The latest-starting span under the cursor is the innermost one.
            best = Hit{laneIndex, lane.classLane ? -1 : int(lane.events[i]), lane.spans[i]};
        }
    }
    return best;
}

QString TimelineView::describe(const Hit& hit) const {
    if (hit.event < 0) {
        return QString("%1 (union)\n%2")
            .arg(data_->lanes[std::size_t(hit.lane)].title, formatUs(hit.span.length()));
    }
    const auto& e = data_->trace.events[std::size_t(hit.event)];
    return QString("%1\n%2, %3")
        .arg(QString::fromStdString(data_->trace.name(e)), formatUs(e.durationUs()),
             trace::toString(e.cls));
}

void TimelineView::wheelEvent(QWheelEvent* event) {
    const double steps = event->angleDelta().y() / 120.0;
    zoomAt(std::pow(1.25, steps), event->position().x());
    event->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* event) {
    dragFrom_ = event->pos();
    dragged_ = false;
}

void TimelineView::mouseMoveEvent(QMouseEvent* event) {
    if (dragFrom_ && (event->buttons() & Qt::LeftButton)) {
        const int dx = event->pos().x() - dragFrom_->x();
        if (std::abs(dx) > 2 || dragged_) {
            axis_.pan(-dx);
            if (data_) {
                axis_.clamp(data_->startUs, data_->endUs);
            }
            dragFrom_ = event->pos();
            dragged_ = true;
            update();
        }
    }
}

void TimelineView::mouseReleaseEvent(QMouseEvent* event) {
    if (!dragged_) {
        if (const auto hit = hitAt(event->pos()); hit && hit->event >= 0) {
            selected_ = hit->event;
            emit eventSelected(selected_, describe(*hit));
            update();
        }
    }
    dragFrom_.reset();
}

bool TimelineView::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        if (const auto hit = hitAt(help->pos())) {
            QToolTip::showText(help->globalPos(), describe(*hit), this);
        } else {
            QToolTip::hideText();
        }
        return true;
    }
    return QWidget::event(e);
}

} // namespace commprof::widgets
