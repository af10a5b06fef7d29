// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The trace timeline: a time ruler, every rank of a stacked timeline with its class lanes and
// its processes' threads and streams (one row per call-stack depth), named slices, and the
// navigation Perfetto and Nsight Systems users expect: keyHelp()'s keys, and a double-click
// zooms to a slice or a step, a click on a header collapses it, a right-click pins a track.
//
// Drawing touches only what is visible: per shown row, a binary search to the first visible
// slice, then one rectangle per slice at least a pixel wide and one per pixel column for
// everything narrower (a jump by binary search to the next column), so a frame costs
// O(rows shown x columns x log n), whatever the number of events.

#include "analysis/critical_path.h"
#include "timeline/overview.h"
#include "timeline/palette.h"
#include "timeline/rank_matching.h"
#include "timeline/slice_ref.h"
#include "timeline/slice_search.h"
#include "timeline/time_axis.h"
#include "timeline/timeline_layout.h"
#include "timeline/timeline_stack.h"

#include <QElapsedTimer>
#include <QImage>
#include <QRgb>
#include <QStringList>
#include <QWidget>

#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

class QMenu;
class QScrollBar;

namespace commprof::widgets {

class TimelineView : public QWidget {
    Q_OBJECT
public:
    static constexpr int kGutter = 240;        // lane names
    static constexpr int kOverviewHeight = 36; // every rank over the whole trace
    static constexpr int kRulerTop = kOverviewHeight;
    static constexpr int kRulerHeight = 32; // annotations, then tick labels and ticks
    static constexpr int kStripTop = kRulerTop + kRulerHeight;
    static constexpr int kStripHeight = 18; // step bands and search marks
    static constexpr int kHeaderHeight = kStripTop + kStripHeight;
    static constexpr std::size_t kOverviewBins = 4096; // binned once per load
    static constexpr double kKeyZoomFactor = 1.5;
    static constexpr double kKeyPanFraction = 0.2;
    static constexpr double kWheelZoomBase = 1.25; // per wheel notch
    static constexpr double kMinSpanUs = 0.01;     // 10 ns across the whole width
    enum class Colouring { ByName, ByClass };

    explicit TimelineView(QWidget* parent = nullptr);

    void setStack(std::shared_ptr<const timeline::TimelineStack> stack);
    const timeline::TimelineStack* stack() const { return stack_.get(); }
    const timeline::TimelineLayout& layout() const { return layout_; }

    // The visible window, in display microseconds (0 = the earliest event of all ranks).
    const timeline::TimeAxis& axis() const { return axis_; }
    int tracksWidth() const;
    // remember: keep the current window for Backspace first.
    void setVisibleRange(double startUs, double endUs, bool remember = false);
    void fitAll();
    void zoomAt(double factor, double xPx); // xPx in widget coordinates
    void panBy(double fractionOfSpan);
    bool back(); // false when there is no earlier view
    void zoomToSlice(timeline::SliceRef slice);
    void zoomToStep(int stepIndex); // a step of the focused rank

    // The ruler's zero: the trace start (0) or a selected step's start.
    void setOrigin(double displayUs, const QString& what);
    double origin() const { return originUs_; }
    QString originText() const { return originText_; }
    // Whose steps the band strip shows (index into the stack's ranks).
    void setFocusRank(int rankIndex) { set(focusRank_, rankIndex); }
    int focusRank() const { return focusRank_; }

    void select(timeline::SliceRef slice, bool reveal = true);
    timeline::SliceRef selected() const { return selected_; }
    // The matching instances on every rank, outlined with their skew (set by the owner).
    void setMatched(const timeline::MatchedSlices& matched) { set(matched_, matched); }
    void setRange(std::optional<std::pair<double, double>> range) { set(range_, range); }
    std::optional<std::pair<double, double>> range() const { return range_; }
    void setMatches(std::shared_ptr<const timeline::SearchMatches> matches);
    void setCurrentMatch(std::size_t index); // reveals it
    void setColouring(Colouring colouring) { set(colouring_, colouring); }
    Colouring colouring() const { return colouring_; }
    // Each step's critical path (analysis/critical_path.h, times on each rank's own trace
    // clock), drawn over its rank's header row while shown: compute, then what the backward
    // waited for, then the optimizer, with the culprit named beside it.
    void setCriticalPath(std::vector<analysis::CriticalStep> path) {
        set(criticalPath_, std::move(path));
    }
    const std::vector<analysis::CriticalStep>& criticalPath() const { return criticalPath_; }
    void setCriticalPathShown(bool shown) { set(criticalPathShown_, shown); }
    bool criticalPathShown() const { return criticalPathShown_; }
    // A red no name hashes to (the palette's are softer), drawn opaque so that it reads alike
    // over any slice.
    static QColor criticalPathColour() { return {0xe8, 0x00, 0x2a}; }
    // The critical step drawn under a point of a rank's header row (its index in
    // criticalPath()), while the path is shown; hovering it shows describeCritical(), clicking
    // it emits criticalStepClicked().
    std::optional<std::size_t> criticalStepAt(QPoint p) const;
    static QString describeCritical(const analysis::CriticalStep& c);
    void toggleRank(int rankIndex);
    void toggleGroup(int rankIndex, int group);
    const timeline::CollapseState& collapsed() const { return collapsed_; }
    int scrollY() const;
    void scrollToRow(std::size_t row);

    // Tracks pinned above the scrolled rows, in the order pinned (they keep their place in
    // the rows below too).
    void togglePin(timeline::LaneKey lane);
    const std::vector<timeline::LaneKey>& pinned() const { return pins_; }
    int pinnedHeight() const; // at most half of the rows' area; the rest of them scroll
    int rowsTop() const { return kHeaderHeight + pinnedHeight(); }
    // The thread or stream under a point of the rows (pinned or scrolled), and its header's
    // menu ("Pin to top" or "Unpin"); null where there is no track.
    std::optional<timeline::LaneKey> laneAt(QPoint p) const;
    std::unique_ptr<QMenu> trackMenu(QPoint p);

    // The overview strip: the whole trace over the tracks' width.
    const timeline::TraceOverview& overview() const { return overview_; }
    double overviewTimeAtX(double xPx) const;
    double overviewXOfTime(double displayUs) const;

    // Geometry, for tests and for the owner: the widget point at the middle of a slice's
    // visible part (nullopt when it is not on screen), and the slice under a point.
    std::optional<QPoint> pointOfSlice(timeline::SliceRef slice) const;
    std::optional<timeline::SliceRef> sliceAt(QPoint p) const;
    std::optional<QPoint> pointOfRow(std::size_t row, double displayUs) const;
    double timeAtX(double xPx) const { return axis_.toUs(xPx - kGutter); }
    double xOfTime(double displayUs) const { return kGutter + axis_.toPixel(displayUs); }
    QString describe(timeline::SliceRef slice) const;

    int lastFrameRects() const { return lastRects_; }
    // The keys and gestures, as the "?" overlay lists them.
    static QStringList keyHelp();
    bool keyHelpShown() const { return keyHelpShown_; }
    int lastFrameLabels() const { return lastLabels_; }
    // Where the last frame put the skew and hover-time labels (empty when not drawn).
    QRect lastSkewLabel() const { return lastSkewLabel_; }
    QRect lastRangeLabel() const { return lastRangeLabel_; }
    QRect lastHoverLabel() const { return lastHoverLabel_; }

signals:
    void sliceSelected(timeline::SliceRef slice);     // invalid: cleared
    void rangeSelected(double startUs, double endUs); // start == end: cleared
    void stepActivated(int stepIndex);
    void originReset();
    void criticalStepClicked(int index); // into criticalPath()

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;
    bool event(QEvent* event) override;

private:
    friend class TimelinePainter;
    // A property the frame draws: set, then drawn again.
    template <class T> void set(T& member, T value) {
        member = std::move(value);
        update();
    }
    void relayout();
    void clampAxis(); // to the trace and a margin, then drawn again
    void rememberView();
    void reveal(timeline::SliceRef slice);
    const timeline::LayoutRow* rowUnder(QPoint p) const; // of the pinned or the scrolled rows
    double anchorX() const; // the cursor inside the tracks, else their middle
    int stepAtX(double xPx) const;
    int rowsHeight() const { return std::max(0, height() - rowsTop()); } // of the scrolled rows
    void moveOverviewWindow(double xPx);
    const QImage& overviewImage() const; // one pixel column per tracks' column

    std::shared_ptr<const timeline::TimelineStack> stack_;
    timeline::TimelineLayout layout_;
    timeline::TimelineLayout pinnedLayout_;
    std::vector<timeline::LaneKey> pins_;
    timeline::TraceOverview overview_;
    mutable QImage overviewImage_;
    timeline::CollapseState collapsed_;
    timeline::LayoutMetrics metrics_;
    timeline::TimeAxis axis_;
    std::vector<std::pair<double, double>> history_;
    QElapsedTimer lastZoom_;
    double originUs_ = 0;
    QString originText_ = "from the trace start";
    int focusRank_ = 0;
    bool keyHelpShown_ = false;
    timeline::SliceRef selected_;
    timeline::MatchedSlices matched_;
    std::optional<std::pair<double, double>> range_;
    std::shared_ptr<const timeline::SearchMatches> matches_;
    std::size_t currentMatch_ = 0;
    Colouring colouring_ = Colouring::ByName;
    std::vector<analysis::CriticalStep> criticalPath_;
    bool criticalPathShown_ = false;
    QScrollBar* vscroll_ = nullptr;

    // Pointer state.
    std::optional<double> hoverX_;
    std::optional<QPoint> pressAt_;
    bool panning_ = false;
    bool measuring_ = false;
    bool overviewDragging_ = false;
    double overviewGrabUs_ = 0; // where in the window the overview was grabbed
    double measureFromUs_ = 0;

    // Per rank, per interned name: the name as QString and its colour, filled as slices are
    // first drawn, and its width in the labels' font, as they are first labelled.
    struct Name {
        QString text;
        float advance = -1;
        QRgb colour = 0;
    };
    mutable std::vector<std::vector<Name>> names_;
    Name& nameOf(int rank, std::uint32_t name) const;

    mutable int lastRects_ = 0;
    mutable int lastLabels_ = 0;
    mutable QRect lastSkewLabel_;
    mutable QRect lastRangeLabel_;
    mutable QRect lastHoverLabel_;
};

} // namespace commprof::widgets
