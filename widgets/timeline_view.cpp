// SPDX-License-Identifier: GPL-3.0-or-later
#include "timeline_view.h"

#include "timeline_painter.h"

#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <cmath>

namespace commprof::widgets {
namespace {

constexpr int kDragThresholdPx = 3;
constexpr int kZoomBurstMs = 800; // zoom steps closer than this are one step back
constexpr std::size_t kHistoryMax = 100;
constexpr double kFitMargin = 0.01;

} // namespace

TimelineView::TimelineView(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setMinimumSize(360, 160);
    setFocusPolicy(Qt::StrongFocus);
    setAttribute(Qt::WA_OpaquePaintEvent);
    vscroll_ = new QScrollBar(Qt::Vertical, this);
    vscroll_->setSingleStep(metrics_.sliceRow);
    connect(vscroll_, &QScrollBar::valueChanged, this, [this] { update(); });
}

int TimelineView::tracksWidth() const {
    return std::max(1, width() - kGutter - vscroll_->sizeHint().width());
}

int TimelineView::pinnedHeight() const {
    return std::min(pinnedLayout_.height(), std::max(0, height() - kHeaderHeight) / 2);
}

int TimelineView::scrollY() const {
    return vscroll_->value();
}

void TimelineView::setStack(std::shared_ptr<const timeline::TimelineStack> stack) {
    stack_ = std::move(stack);
    collapsed_ = {};
    selected_ = {};
    matched_ = {};
    range_.reset();
    matches_.reset();
    criticalPath_.clear(); // the new traces' path comes after them
    currentMatch_ = 0;
    pins_.clear();
    focusRank_ = 0;
    originUs_ = 0;
    originText_ = "from the trace start";
    names_.assign(stack_ ? stack_->ranks.size() : 0, {});
    overview_ =
        stack_ ? timeline::buildOverview(*stack_, kOverviewBins) : timeline::TraceOverview{};
    overviewImage_ = {};
    relayout();
    vscroll_->setValue(0);
    fitAll();
    history_.clear(); // the first view has nothing before it
}

void TimelineView::relayout() {
    layout_ = stack_ ? timeline::TimelineLayout(*stack_, collapsed_, metrics_)
                     : timeline::TimelineLayout();
    pinnedLayout_ = stack_ ? timeline::TimelineLayout::pinnedLanes(*stack_, pins_, metrics_)
                           : timeline::TimelineLayout();
    const int sw = vscroll_->sizeHint().width();
    vscroll_->setGeometry(width() - sw, rowsTop(), sw, rowsHeight());
    vscroll_->setRange(0, std::max(0, layout_.height() - rowsHeight()));
    vscroll_->setPageStep(std::max(1, rowsHeight()));
    update();
}

void TimelineView::resizeEvent(QResizeEvent*) {
    axis_.setWidth(tracksWidth());
    overviewImage_ = {};
    relayout();
}

void TimelineView::clampAxis() {
    const double total = stack_ ? stack_->endUs : 1.0;
    const double margin = total * 0.05;
    axis_.clamp(-margin, total + margin, kMinSpanUs);
    update();
}

void TimelineView::rememberView() {
    if (!history_.empty() && history_.back().first == axis_.startUs() &&
        history_.back().second == axis_.endUs()) {
        return;
    }
    history_.emplace_back(axis_.startUs(), axis_.endUs());
    if (history_.size() > kHistoryMax) {
        history_.erase(history_.begin());
    }
}

void TimelineView::setVisibleRange(double startUs, double endUs, bool remember) {
    if (remember) {
        rememberView();
    }
    axis_ = timeline::TimeAxis(startUs, endUs, tracksWidth());
    clampAxis();
}

void TimelineView::fitAll() {
    const double total = stack_ ? stack_->endUs : 1.0;
    setVisibleRange(-total * kFitMargin, total * (1 + kFitMargin), true);
}

void TimelineView::zoomAt(double factor, double xPx) {
    if (!lastZoom_.isValid() || lastZoom_.elapsed() > kZoomBurstMs) {
        rememberView(); // once per burst of zoom steps
    }
    lastZoom_.start();
    axis_.zoom(factor, xPx - kGutter);
    clampAxis();
}

void TimelineView::panBy(double fractionOfSpan) {
    axis_.pan(fractionOfSpan * axis_.widthPx());
    clampAxis();
}

bool TimelineView::back() {
    if (history_.empty()) {
        return false;
    }
    const auto [s, e] = history_.back();
    history_.pop_back();
    axis_ = timeline::TimeAxis(s, e, tracksWidth());
    lastZoom_.invalidate();
    update();
    return true;
}

void TimelineView::zoomToSlice(timeline::SliceRef slice) {
    if (!stack_ || !slice.valid() || std::size_t(slice.rank) >= stack_->ranks.size()) {
        return;
    }
    const auto& e = stack_->ranks[std::size_t(slice.rank)]->trace.events[slice.event];
    const double s = stack_->toDisplay(std::size_t(slice.rank), e.startUs);
    const double d = std::max(e.durationUs(), kMinSpanUs);
    setVisibleRange(s - d * 0.05, s + d * 1.05, true);
    reveal(slice);
}

void TimelineView::zoomToStep(int stepIndex) {
    if (!stack_ || stack_->ranks.empty()) {
        return;
    }
    const std::size_t r = std::size_t(std::clamp(focusRank_, 0, int(stack_->ranks.size()) - 1));
    const auto& steps = stack_->ranks[r]->steps;
    if (stepIndex < 0 || std::size_t(stepIndex) >= steps.size()) {
        return;
    }
    const auto& w = steps[std::size_t(stepIndex)].window;
    const double s = stack_->toDisplay(r, w.start);
    const double e = stack_->toDisplay(r, w.end);
    setVisibleRange(s - (e - s) * 0.02, e + (e - s) * 0.02, true);
}

void TimelineView::setOrigin(double displayUs, const QString& what) {
    originUs_ = displayUs;
    originText_ = what;
    update();
}

void TimelineView::select(timeline::SliceRef slice, bool revealIt) {
    selected_ = slice;
    if (slice.valid() && revealIt) {
        reveal(slice);
    }
    update();
}

std::optional<std::size_t> TimelineView::criticalStepAt(QPoint p) const {
    if (!criticalPathShown_ || criticalPath_.empty() || !stack_ || p.x() < kGutter ||
        p.x() >= kGutter + tracksWidth() || p.y() < rowsTop()) {
        return std::nullopt;
    }
    const timeline::LayoutRow* row = rowUnder(p);
    if (!row || row->kind != timeline::RowKind::Rank) {
        return std::nullopt;
    }
    const std::size_t r = std::size_t(row->rank);
    const int number = stack_->ranks[r]->rank;
    const double t = stack_->toTrace(r, timeAtX(p.x()));
    const double slack = 2 * axis_.usPerPixel(); // a step one pixel wide can still be hovered
    const auto it = std::ranges::find_if(criticalPath_, [&](const analysis::CriticalStep& c) {
        return c.rank == number && t >= c.startUs - slack && t <= c.endUs + slack;
    });
    return it == criticalPath_.end() ? std::nullopt
                                     : std::optional(std::size_t(it - criticalPath_.begin()));
}

QString TimelineView::describeCritical(const analysis::CriticalStep& c) {
    return QString("Critical path, step %1, on rank %2: %3\n"
                   "compute %4, then waited %5 after it, optimizer %6 (step %7)")
        .arg(c.step)
        .arg(c.rank)
        .arg(c.culprit)
        .arg(timeline::formatDuration(c.computeEndUs - c.startUs))
        .arg(timeline::formatDuration(c.backwardEndUs - c.computeEndUs))
        .arg(timeline::formatDuration(c.endUs - c.backwardEndUs))
        .arg(timeline::formatDuration(c.endUs - c.startUs));
}

void TimelineView::setMatches(std::shared_ptr<const timeline::SearchMatches> matches) {
    matches_ = std::move(matches);
    currentMatch_ = matches_ ? matches_->count() : 0;
    update();
}

void TimelineView::setCurrentMatch(std::size_t index) {
    currentMatch_ = index;
    if (matches_ && index < matches_->count()) {
        reveal(matches_->slices[index]);
    }
    update();
}

void TimelineView::toggleRank(int rankIndex) {
    collapsed_.toggleRank(rankIndex);
    relayout();
}

void TimelineView::toggleGroup(int rankIndex, int group) {
    collapsed_.toggleGroup(rankIndex, group);
    relayout();
}

void TimelineView::togglePin(timeline::LaneKey lane) {
    if (std::erase(pins_, lane) == 0) {
        pins_.push_back(lane);
    }
    relayout();
}

std::optional<timeline::LaneKey> TimelineView::laneAt(QPoint p) const {
    if (!stack_ || p.y() < kHeaderHeight || p.x() >= kGutter + tracksWidth()) {
        return std::nullopt;
    }
    const timeline::LayoutRow* row = rowUnder(p);
    if (!row || row->kind != timeline::RowKind::Slices) {
        return std::nullopt;
    }
    return timeline::LaneKey{row->rank, row->group, row->lane};
}

const timeline::LayoutRow* TimelineView::rowUnder(QPoint p) const {
    const bool inPinned = p.y() < rowsTop();
    const auto& l = inPinned ? pinnedLayout_ : layout_;
    const std::size_t i = l.rowAt(inPinned ? p.y() - kHeaderHeight : p.y() - rowsTop() + scrollY());
    return i < l.rows().size() ? &l.rows()[i] : nullptr;
}

std::unique_ptr<QMenu> TimelineView::trackMenu(QPoint p) {
    const auto lane = laneAt(p);
    if (!lane) {
        return nullptr;
    }
    const bool isPinned = std::find(pins_.begin(), pins_.end(), *lane) != pins_.end();
    auto menu = std::make_unique<QMenu>(this);
    QAction* pin = menu->addAction(isPinned ? "Unpin" : "Pin to top");
    pin->setShortcut(QKeySequence(Qt::Key_P));
    connect(pin, &QAction::triggered, this, [this, l = *lane] { togglePin(l); });
    return menu;
}

void TimelineView::contextMenuEvent(QContextMenuEvent* event) {
    if (auto menu = trackMenu(event->pos())) {
        menu->exec(event->globalPos());
        event->accept();
        return;
    }
    QWidget::contextMenuEvent(event);
}

double TimelineView::overviewTimeAtX(double xPx) const {
    return overview_.startUs +
           (xPx - kGutter) / std::max(1, tracksWidth()) * (overview_.endUs() - overview_.startUs);
}

double TimelineView::overviewXOfTime(double displayUs) const {
    const double total = std::max(1e-9, overview_.endUs() - overview_.startUs);
    return kGutter + (displayUs - overview_.startUs) / total * tracksWidth();
}

void TimelineView::moveOverviewWindow(double xPx) {
    const double span = axis_.endUs() - axis_.startUs();
    const double start = overviewTimeAtX(xPx) - overviewGrabUs_;
    setVisibleRange(start, start + span);
}

const QImage& TimelineView::overviewImage() const {
    const int w = tracksWidth();
    const std::size_t bins = overview_.bins;
    if (overviewImage_.width() == w || overview_.ranks.empty() || bins == 0) {
        return overviewImage_;
    }
    // One row of pixels per rank and class, one column per tracks' column: each pixel the
    // class colour as strong as the class is busy over the bins under that column.
    const int h = int(overview_.ranks.size() * timeline::kOverviewClasses);
    overviewImage_ = QImage(w, h, QImage::Format_RGB32);
    for (std::size_t r = 0; r < overview_.ranks.size(); ++r) {
        const auto& rank = *stack_->ranks[r];
        for (std::size_t c = 0; c < timeline::kOverviewClasses; ++c) {
            const auto& busy = overview_.ranks[r].busy[c];
            const auto colour =
                timeline::classColour(c < rank.classLanes.size() ? rank.classLanes[c].cls
                                                                 : trace::EventClass::NotCounted);
            auto* line = reinterpret_cast<QRgb*>(
                overviewImage_.scanLine(int(r * timeline::kOverviewClasses + c)));
            for (int x = 0; x < w; ++x) {
                const auto b0 = std::size_t(double(x) * double(bins) / w);
                const auto b1 = std::max(b0 + 1, std::size_t(double(x + 1) * double(bins) / w));
                double sum = 0;
                for (std::size_t b = b0; b < b1 && b < busy.size(); ++b) {
                    sum += busy[b];
                }
                const double f = sum / double(b1 - b0);
                // Anything at all shows: a short burst must not vanish into white.
                const double a = f > 0 ? 0.25 + 0.75 * f : 0;
                auto mix = [a](int fg) { return int(std::lround(255 * (1 - a) + fg * a)); };
                line[x] = qRgb(mix(colour.r), mix(colour.g), mix(colour.b));
            }
        }
    }
    return overviewImage_;
}

void TimelineView::scrollToRow(std::size_t row) {
    if (row >= layout_.rows().size()) {
        return;
    }
    const auto& r = layout_.rows()[row];
    if (r.top < scrollY() || r.bottom() > scrollY() + rowsHeight()) {
        vscroll_->setValue(r.top - rowsHeight() / 3);
    }
}

void TimelineView::reveal(timeline::SliceRef slice) {
    if (!stack_ || !slice.valid() || std::size_t(slice.rank) >= stack_->ranks.size()) {
        return;
    }
    const auto& rank = *stack_->ranks[std::size_t(slice.rank)];
    const auto& place = rank.places[slice.event];
    // Whatever hides it opens, as in Perfetto.
    const std::size_t opened = collapsed_.ranks.erase(slice.rank) +
                               collapsed_.groups.erase({slice.rank, int(place.group)});
    if (opened > 0) {
        relayout();
    }
    scrollToRow(layout_.rowOfSlice(slice.rank, place));
    const auto& e = rank.trace.events[slice.event];
    const double s = stack_->toDisplay(std::size_t(slice.rank), e.startUs);
    const double end = s + e.durationUs();
    const double span = axis_.endUs() - axis_.startUs();
    if (end < axis_.startUs() || s > axis_.endUs()) {
        const double mid = s + e.durationUs() / 2;
        setVisibleRange(mid - span / 2, mid + span / 2);
    }
}

std::optional<QPoint> TimelineView::pointOfRow(std::size_t row, double displayUs) const {
    if (row >= layout_.rows().size()) {
        return std::nullopt;
    }
    const auto& r = layout_.rows()[row];
    const int y = rowsTop() + r.top - scrollY() + r.height / 2;
    if (y < rowsTop() || y >= height()) {
        return std::nullopt;
    }
    return QPoint(int(std::lround(xOfTime(displayUs))), y);
}

std::optional<QPoint> TimelineView::pointOfSlice(timeline::SliceRef slice) const {
    if (!stack_ || !slice.valid() || std::size_t(slice.rank) >= stack_->ranks.size()) {
        return std::nullopt;
    }
    const auto& rank = *stack_->ranks[std::size_t(slice.rank)];
    const auto& e = rank.trace.events[slice.event];
    const double s =
        std::max(stack_->toDisplay(std::size_t(slice.rank), e.startUs), axis_.startUs());
    const double end = std::min(stack_->toDisplay(std::size_t(slice.rank), e.endUs), axis_.endUs());
    if (end < s) {
        return std::nullopt;
    }
    return pointOfRow(layout_.rowOfSlice(slice.rank, rank.places[slice.event]), (s + end) / 2);
}

std::optional<timeline::SliceRef> TimelineView::sliceAt(QPoint p) const {
    if (!stack_ || p.x() < kGutter || p.x() >= kGutter + tracksWidth() || p.y() < kHeaderHeight) {
        return std::nullopt;
    }
    const timeline::LayoutRow* row = rowUnder(p);
    if (!row || row->kind != timeline::RowKind::Slices) {
        return std::nullopt;
    }
    const auto& rank = *stack_->ranks[std::size_t(row->rank)];
    const auto& lane = rank.groups[std::size_t(row->group)].lanes[std::size_t(row->lane)];
    if (std::size_t(row->depth) >= lane.rows.size()) {
        return std::nullopt;
    }
    const auto& sliceRow = lane.rows[std::size_t(row->depth)];
    const double t = stack_->toTrace(std::size_t(row->rank), timeAtX(p.x()));
    // Up to two pixels either side: a one-pixel kernel can still be clicked.
    const std::size_t k = sliceRow.sliceAt(t, 2 * axis_.usPerPixel());
    if (k >= sliceRow.size()) {
        return std::nullopt;
    }
    return timeline::SliceRef{row->rank, sliceRow.events[k]};
}

QString TimelineView::describe(timeline::SliceRef slice) const {
    if (!stack_ || !slice.valid()) {
        return {};
    }
    const auto& t = stack_->ranks[std::size_t(slice.rank)]->trace;
    const auto& e = t.events[slice.event];
    return QString("%1\n%2 · %3")
        .arg(QString::fromStdString(t.name(e)), timeline::formatDuration(e.durationUs()),
             trace::toString(e.cls));
}

TimelineView::Name& TimelineView::nameOf(int rank, std::uint32_t name) const {
    auto& cache = names_[std::size_t(rank)];
    const auto& strings = stack_->ranks[std::size_t(rank)]->trace.strings;
    if (cache.empty()) {
        cache.resize(strings.size());
    }
    Name& n = cache[name];
    if (n.text.isNull()) {
        n.text = QString::fromStdString(strings.at(name));
        const auto c = timeline::nameColour(strings.at(name));
        n.colour = qRgb(c.r, c.g, c.b);
    }
    return n;
}

void TimelineView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    TimelinePainter(*this, p).paint();
    if (keyHelpShown_) {
        // The keys over the tracks, as Perfetto's "?": what the user can do from here.
        const QStringList lines = keyHelp();
        const QFontMetrics fm = fontMetrics();
        const auto advance = [&](const QString& l) { return fm.horizontalAdvance(l); };
        const int w = advance(*std::ranges::max_element(lines, {}, advance));
        const QRect box(QPoint(0, 0), QSize(w + 24, fm.lineSpacing() * int(lines.size()) + 16));
        const QRect at = box.translated(rect().center() - box.center());
        p.setPen(QPen(palette().color(QPalette::Mid), 1));
        p.setBrush(QColor(255, 255, 255, 240));
        p.drawRoundedRect(at, 6, 6);
        p.setPen(palette().color(QPalette::Text));
        for (int i = 0; i < lines.size(); ++i) {
            p.drawText(at.left() + 12, at.top() + 8 + fm.ascent() + i * fm.lineSpacing(), lines[i]);
        }
    }
    if (hasFocus()) {
        // Where the keys go (W/S/A/D, F, arrows): a frame in the palette's highlight.
        p.setPen(QPen(palette().color(QPalette::Highlight), 2));
        p.setBrush(Qt::NoBrush);
        p.drawRect(QRectF(rect()).adjusted(1, 1, -1, -1));
    }
}

QStringList TimelineView::keyHelp() {
    return {"W / S, + / -   zoom in / out at the mouse",
            "A / D          pan left / right",
            "F, Home        fit the whole trace, from its start",
            "overview       click or drag: move the view over the trace",
            "P              pin / unpin the selected slice's track",
            "Backspace      back to the previous view",
            "Ctrl+wheel     zoom;  Shift+wheel  pan;  wheel  scroll",
            "click          select a slice;  Shift+drag  measure a range",
            "Ctrl+F, F3     search, next match (Shift+F3: previous)",
            "C              the critical path of each step, on / off",
            "Esc            clear the selection;  ?  this list"};
}

double TimelineView::anchorX() const {
    return hoverX_ && *hoverX_ >= kGutter && *hoverX_ < kGutter + tracksWidth()
               ? *hoverX_
               : kGutter + tracksWidth() / 2.0;
}

void TimelineView::keyPressEvent(QKeyEvent* event) {
    switch (event->key()) {
    case Qt::Key_W:
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomAt(kKeyZoomFactor, anchorX());
        break;
    case Qt::Key_S:
    case Qt::Key_Minus:
        zoomAt(1.0 / kKeyZoomFactor, anchorX());
        break;
    case Qt::Key_A:
        panBy(-kKeyPanFraction);
        break;
    case Qt::Key_D:
        panBy(kKeyPanFraction);
        break;
    case Qt::Key_Home:
    case Qt::Key_F:
        // The whole trace counted from a step would read negative before it.
        fitAll();
        if (originUs_ != 0 || originText_ != "from the trace start") {
            setOrigin(0, "from the trace start");
            emit originReset();
        }
        break;
    case Qt::Key_P:
        if (stack_ && selected_.valid() && std::size_t(selected_.rank) < stack_->ranks.size()) {
            const auto& place = stack_->ranks[std::size_t(selected_.rank)]->places[selected_.event];
            togglePin({selected_.rank, int(place.group), int(place.lane)});
        }
        break;
    case Qt::Key_Backspace:
        back();
        break;
    case Qt::Key_Question:
        keyHelpShown_ = !keyHelpShown_;
        update();
        break;
    case Qt::Key_Escape:
        if (keyHelpShown_) {
            keyHelpShown_ = false;
            update();
        } else if (selected_.valid() || range_) {
            selected_ = {};
            range_.reset();
            emit sliceSelected({});
            emit rangeSelected(0, 0);
            update();
        }
        break;
    default:
        QWidget::keyPressEvent(event);
        return;
    }
    event->accept();
}

void TimelineView::wheelEvent(QWheelEvent* event) {
    const QPoint delta = event->angleDelta();
    if (event->modifiers() & Qt::ControlModifier) {
        zoomAt(std::pow(kWheelZoomBase, delta.y() / 120.0), event->position().x());
    } else if ((event->modifiers() & Qt::ShiftModifier) || delta.x() != 0) {
        const int d = delta.x() != 0 ? delta.x() : delta.y();
        panBy(-d / 120.0 * kKeyPanFraction / 2);
    } else {
        vscroll_->setValue(vscroll_->value() - delta.y() / 120 * 3 * metrics_.sliceRow);
    }
    event->accept();
}

int TimelineView::stepAtX(double xPx) const {
    if (!stack_ || stack_->ranks.empty()) {
        return -1;
    }
    const std::size_t r = std::size_t(std::clamp(focusRank_, 0, int(stack_->ranks.size()) - 1));
    const double t = stack_->toTrace(r, timeAtX(xPx));
    const auto& steps = stack_->ranks[r]->steps;
    const auto it = std::ranges::find_if(
        steps, [&](const auto& s) { return t >= s.window.start && t <= s.window.end; });
    return it == steps.end() ? -1 : int(it - steps.begin());
}

void TimelineView::mousePressEvent(QMouseEvent* event) {
    setFocus(Qt::MouseFocusReason);
    if (event->button() != Qt::LeftButton || !stack_) {
        return;
    }
    const QPoint pos = event->position().toPoint();
    if (pos.y() < kOverviewHeight && pos.x() >= kGutter) {
        // Grabbed inside the window it moves by the drag; elsewhere it centres there first.
        rememberView();
        const double t = overviewTimeAtX(pos.x());
        const bool inside = t >= axis_.startUs() && t <= axis_.endUs();
        overviewGrabUs_ = inside ? t - axis_.startUs() : (axis_.endUs() - axis_.startUs()) / 2;
        overviewDragging_ = true;
        moveOverviewWindow(pos.x());
        return;
    }
    if (pos.y() >= kStripTop && pos.y() < kHeaderHeight && pos.x() >= kGutter) {
        if (const int s = stepAtX(pos.x()); s >= 0) {
            zoomToStep(s);
            emit stepActivated(s);
        }
        return;
    }
    if (pos.y() >= kRulerTop && pos.y() < kStripTop && pos.x() < kGutter) {
        setOrigin(0, "from the trace start");
        emit originReset();
        return;
    }
    if (pos.y() >= rowsTop() && pos.x() < kGutter) {
        const timeline::LayoutRow* row = rowUnder(pos);
        if (row && row->kind == timeline::RowKind::Rank) {
            toggleRank(row->rank);
        } else if (row && row->kind == timeline::RowKind::Process) {
            toggleGroup(row->rank, row->group);
        }
        return;
    }
    pressAt_ = pos;
    panning_ = false;
    measuring_ = (event->modifiers() & Qt::ShiftModifier) && pos.x() >= kGutter;
    if (measuring_) {
        measureFromUs_ = timeAtX(pos.x());
        range_ = std::make_pair(measureFromUs_, measureFromUs_);
    }
}

void TimelineView::mouseMoveEvent(QMouseEvent* event) {
    const QPoint pos = event->position().toPoint();
    const bool inTracks = pos.x() >= kGutter && pos.x() < kGutter + tracksWidth();
    hoverX_ = inTracks ? std::optional<double>(pos.x()) : std::nullopt;
    if (overviewDragging_ && (event->buttons() & Qt::LeftButton)) {
        moveOverviewWindow(std::clamp(pos.x(), kGutter, kGutter + tracksWidth()));
        return;
    }
    if (pressAt_ && (event->buttons() & Qt::LeftButton)) {
        if (measuring_) {
            const double t = timeAtX(std::clamp(pos.x(), kGutter, kGutter + tracksWidth()));
            range_ = std::make_pair(std::min(measureFromUs_, t), std::max(measureFromUs_, t));
        } else {
            const int dx = pos.x() - pressAt_->x();
            const int dy = pos.y() - pressAt_->y();
            if (panning_ || std::abs(dx) > kDragThresholdPx || std::abs(dy) > kDragThresholdPx) {
                panning_ = true;
                axis_.pan(-dx);
                clampAxis();
                vscroll_->setValue(vscroll_->value() - dy);
                pressAt_ = pos;
            }
        }
    }
    update();
}

void TimelineView::mouseReleaseEvent(QMouseEvent* event) {
    if (overviewDragging_) {
        overviewDragging_ = false;
        return;
    }
    if (!pressAt_) {
        return;
    }
    const QPoint pos = event->position().toPoint();
    if (measuring_) {
        if (range_ && range_->second > range_->first) {
            emit rangeSelected(range_->first, range_->second);
        } else {
            range_.reset();
            emit rangeSelected(0, 0);
        }
    } else if (!panning_) {
        const auto hit = sliceAt(pos);
        selected_ = hit.value_or(timeline::SliceRef{});
        emit sliceSelected(selected_);
        if (const auto step = hit ? std::nullopt : criticalStepAt(pos)) {
            emit criticalStepClicked(int(*step));
        }
    }
    pressAt_.reset();
    measuring_ = false;
    panning_ = false;
    update();
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent* event) {
    const QPoint pos = event->position().toPoint();
    if (const auto hit = sliceAt(pos)) {
        selected_ = *hit;
        zoomToSlice(*hit);
        emit sliceSelected(*hit);
    } else if (pos.y() >= kStripTop && pos.y() < kHeaderHeight) {
        if (const int s = stepAtX(pos.x()); s >= 0) {
            zoomToStep(s);
        }
    }
}

void TimelineView::leaveEvent(QEvent*) {
    hoverX_.reset();
    update();
}

bool TimelineView::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        if (const auto hit = sliceAt(help->pos())) {
            QToolTip::showText(help->globalPos(), describe(*hit), this);
        } else if (const auto step = criticalStepAt(help->pos())) {
            QToolTip::showText(help->globalPos(), describeCritical(criticalPath_[*step]), this);
        } else {
            QToolTip::hideText();
        }
        return true;
    }
    return QWidget::event(e);
}

} // namespace commprof::widgets
