#pragma once
// The trace timeline: class lanes (compute, communication, bookkeeping as union spans), one
// lane per thread or stream of raw events, step windows shaded. Wheel zooms about the cursor,
// drag pans, hovering shows an event's name and duration, a click selects it. Drawing merges
// everything that falls into one pixel column, so a frame costs O(visible columns x log n)
// per lane, whatever the number of events.

#include "timeline/time_axis.h"
#include "timeline/timeline_data.h"

#include <QWidget>

#include <memory>
#include <optional>

namespace commprof::widgets {

class TimelineView : public QWidget {
    Q_OBJECT
public:
    static constexpr int kGutter = 170;
    static constexpr int kRuler = 22;
    static constexpr int kLaneHeight = 18;

    explicit TimelineView(QWidget* parent = nullptr);
    void setData(std::shared_ptr<const timeline::TimelineData> data);
    const timeline::TimeAxis& axis() const { return axis_; }
    void setVisibleRange(double startUs, double endUs);
    void zoomAt(double factor, double xPx);

    struct Hit {
        int lane = -1;
        int event = -1; // index into the trace's events; -1 on a class lane
        trace::Span span;
    };
    std::optional<Hit> hitAt(QPoint p) const;
    QString describe(const Hit& hit) const;
    int selectedEvent() const { return selected_; }
    int lastFrameRects() const { return lastRects_; }
    QPoint pointOf(int lane, double us) const; // the widget point at a lane's middle and a time

signals:
    void eventSelected(int eventIndex, const QString& description);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;

private:
    int drawLane(class QPainter& p, const timeline::Lane& lane, int y, const QColor& colour) const;
    std::shared_ptr<const timeline::TimelineData> data_;
    timeline::TimeAxis axis_;
    int selected_ = -1;
    std::optional<QPoint> dragFrom_;
    bool dragged_ = false;
    mutable int lastRects_ = 0;
};

} // namespace commprof::widgets
