// SPDX-License-Identifier: GPL-3.0-or-later
#include "plot_style.h"

#include "facets.h"
#include "readable_ticker.h"
#include "spec/layers.h"
#include "spec/mapped.h"

#include <QHash>
#include <QMap>
#include <QRegularExpression>
#include <QtMath>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace commprof::widgets {
namespace {

// Layers and ranks never take the kinds' colours (blue, orange, green), so a colour on screen
// always means one thing.
const QList<QColor> kSpareLayerColours{QColor(227, 119, 194), QColor(188, 189, 34),
                                       QColor(57, 59, 121), QColor(127, 127, 127)};
const QList<QColor> kRankColours{QColor(31, 119, 180),  QColor(214, 39, 40),   QColor(44, 160, 44),
                                 QColor(148, 103, 189), QColor(255, 127, 14),  QColor(140, 86, 75),
                                 QColor(227, 119, 194), QColor(127, 127, 127), QColor(188, 189, 34),
                                 QColor(23, 190, 207)};
const QList<Qt::PenStyle> kDashes{Qt::SolidLine, Qt::DashLine, Qt::DotLine, Qt::DashDotLine,
                                  Qt::DashDotDotLine};
const QList<QCPScatterStyle::ScatterShape> kMarkers{QCPScatterStyle::ssDisc,
                                                    QCPScatterStyle::ssSquare,
                                                    QCPScatterStyle::ssTriangle,
                                                    QCPScatterStyle::ssDiamond,
                                                    QCPScatterStyle::ssTriangleInverted,
                                                    QCPScatterStyle::ssStar,
                                                    QCPScatterStyle::ssCrossSquare,
                                                    QCPScatterStyle::ssPlusCircle,
                                                    QCPScatterStyle::ssCross,
                                                    QCPScatterStyle::ssPlus};
constexpr int kWorldSizeShapes = 5; // the first markers, each filled

constexpr double kBarWidth = 0.6;  // of a category's width
constexpr double kHeadroom = 0.22; // of the range above the data: room for the flagged band
constexpr double kFlaggedBandY = 0.02;
// A legend takes at most this share of the figure's height: inside the axes (it hides that much
// of the plot) or below them (with the title and the axes, the plot keeps half of the figure).
constexpr double kLegendShare = 0.25;
constexpr double kEmptyTextShare = 0.7;
constexpr int kLaidOutPx = 200;
constexpr const char* kLegendRank = "legendRank";
constexpr const char* kRunName = "categoryRun";
constexpr const char* kRunSeparator = "categoryRunSeparator";

// The value range of a bar stacked on others: from the top of the bars below to its own top.
QCPRange stackedRange(const QCPBars* bars, double key) {
    const auto valueAt = [key](const QCPBars* b) {
        const auto it = std::find_if(b->data()->constBegin(), b->data()->constEnd(),
                                     [key](const QCPBarsData& d) { return d.key == key; });
        return it == b->data()->constEnd() ? 0.0 : it->value;
    };
    double base = 0;
    for (const QCPBars* below = bars->barBelow(); below; below = below->barBelow()) {
        base += valueAt(below);
    }
    return {base, base + valueAt(bars)};
}

// A text centred at `x` on `keys`, its top `y` down the axes (a share of their height), clipped
// to them: a flagged marker, a run's name.
QCPItemText* textAtTop(QCPAxis* keys, double x, double y, const char* name, const QString& text,
                       const QFont& font, const QColor& colour) {
    QCPAxisRect* rect = keys->axisRect();
    auto* t = new QCPItemText(keys->parentPlot());
    t->setObjectName(name);
    t->setClipAxisRect(rect);
    t->position->setAxes(keys, rect->axis(QCPAxis::atLeft));
    t->position->setAxisRect(rect);
    t->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    t->position->setCoords(x, y);
    t->setPositionAlignment(Qt::AlignTop | Qt::AlignHCenter);
    t->setFont(font);
    t->setColor(colour);
    t->setPadding(QMargins(2, 1, 2, 1));
    t->setText(text);
    return t;
}

// Keeps every k-th category, k the least that leaves room between neighbouring labels along
// the axis. A rotated label takes its bounding box's width: what its neighbour must clear.
class CategoryTicker : public QCPAxisTickerText {
public:
    explicit CategoryTicker(const QCPAxis* axis)
        : axis_(axis), basePt_(axis->tickLabelFont().pointSizeF()) {}

    // The figure's own size of the labels, before fitCategoryLabels made them smaller.
    double basePt() const { return basePt_; }

    // The room a label has across the axis (its lines are at most this long).
    double roomPx() const {
        const QCustomPlot* plot = axis_->parentPlot();
        const QVariant room = plot->property("tickLabelRoomPx");
        return std::max(
            room.isValid() ? room.toDouble() : plot->viewport().height() * kTickLabelShare, 24.0);
    }

    // The widest word of any label in `font`: a line can be broken before it, not in it.
    double widestWordPx(const QFont& font) const {
        static const QRegularExpression lineBreaks("[ \n]");
        const QFontMetricsF fm(font);
        double widest = 0;
        for (const QString& label : mTicks) {
            for (const QString& word : label.split(lineBreaks)) {
                widest = std::max(widest, fm.horizontalAdvance(word));
            }
        }
        return widest;
    }

    // The least k for which every k-th label in `font` clears its neighbours, at the axis's
    // length as last laid out (1 before any layout).
    int every(const QFont& font, const QVector<double>& keys, const QCPRange& range) const {
        const QCPAxisRect* rect = axis_->axisRect();
        const double lengthPx =
            axis_->orientation() == Qt::Horizontal ? rect->width() : rect->height();
        if (keys.size() < 2 || lengthPx <= 0 || range.size() <= 0) {
            return 1;
        }
        const QFontMetricsF fm(font);
        const double angle = qDegreesToRadians(std::abs(axis_->tickLabelRotation()));
        double need = 0;
        for (double key : keys) {
            const QRectF box =
                fm.boundingRect(QRectF(), Qt::TextDontClip, fitted(mTicks.value(key), font));
            const double along =
                axis_->orientation() == Qt::Horizontal
                    ? box.width() * std::cos(angle) + box.height() * std::sin(angle)
                    : box.height() * std::cos(angle) + box.width() * std::sin(angle);
            need = std::max(need, along + kGapPx);
        }
        const double perCategoryPx = lengthPx / range.size();
        return std::max(1, int(std::ceil(need / perCategoryPx)));
    }
    // Whether labels in `font` would be thinned at the axis's present length.
    bool thinned(const QFont& font) const {
        return every(font, QVector<double>(mTicks.keyBegin(), mTicks.keyEnd()), axis_->range()) > 1;
    }

protected:
    QVector<double> createTickVector(double tickStep, const QCPRange& range) override {
        QVector<double> all = QCPAxisTickerText::createTickVector(tickStep, range);
        const int every = this->every(axis_->tickLabelFont(), all, range);
        if (every == 1) {
            return all;
        }
        QVector<double> kept;
        for (double key : all) {
            if ((std::llround(key) - 1) % every == 0) {
                kept << key;
            }
        }
        return kept;
    }

    QVector<QString> createLabelVector(const QVector<double>& ticks, const QLocale& locale,
                                       QChar formatChar, int precision) override {
        QVector<QString> labels =
            QCPAxisTickerText::createLabelVector(ticks, locale, formatChar, precision);
        for (QString& label : labels) {
            label = fitted(label, axis_->tickLabelFont());
        }
        return labels;
    }

private:
    // Every label fits the room across the axis: a line too long is broken at its spaces, and
    // only a word longer than the room loses its middle, never its ends.
    QString fitted(const QString& label, const QFont& font) const {
        const double room = roomPx();
        const QFontMetricsF fm(font);
        QStringList lines;
        for (const QString& line : label.split('\n')) {
            lines << (fm.horizontalAdvance(line) > room ? wrapped(line, font, room).split('\n')
                                                        : QStringList{line});
        }
        for (QString& line : lines) {
            line = fm.elidedText(line, Qt::ElideMiddle, room);
        }
        return lines.join('\n');
    }

    static constexpr double kGapPx = 4.0;
    const QCPAxis* axis_;
    double basePt_;
};

} // namespace

QFont FigureStyle::font(double delta, bool bold) const {
    QFont f("DejaVu Sans");
    f.setPointSizeF(fontPt + delta);
    f.setBold(bold);
    return f;
}

QColor layerColour(const QString& layer) {
    if (const spec::Layer* l = spec::findLayer(layer.toStdString())) {
        return {l->rgb[0], l->rgb[1], l->rgb[2]};
    }
    return kSpareLayerColours[int(qHash(layer) % uint(kSpareLayerColours.size()))];
}

QColor rankColour(int rank) {
    return kRankColours[std::abs(rank) % kRankColours.size()];
}

QColor computeColour() {
    return {31, 119, 180};
}
QColor communicationColour() {
    return {255, 127, 14};
}
QColor bookkeepingColour() {
    return {44, 160, 44};
}
QColor flaggedColour() {
    return {200, 30, 30};
}

QColor hookColour(const QString& hook) {
    static const QHash<QString, QColor> kColours{
        {"allreduce", QColor(31, 119, 180)},    {"fp16_compress", QColor(255, 127, 14)},
        {"bf16_compress", QColor(140, 86, 75)}, {"powersgd", QColor(44, 160, 44)},
        {"local", QColor(127, 127, 127)},
    };
    return kColours.value(hook, QColor(148, 103, 189));
}

QColor seriesColour(const QString& axis, const QString& value, int index, int shade) {
    const QColor base = axis.isEmpty()    ? QColor(130, 130, 130)
                        : axis == "hook"  ? hookColour(value)
                        : axis == "layer" ? layerColour(value)
                                          : kRankColours[std::max(0, index) % kRankColours.size()];
    if (shade <= 0) {
        return base;
    }
    // Odd shades darker, even ones lighter, each step further: neighbours differ most.
    const int step = (shade + 1) / 2;
    return shade % 2 ? base.darker(100 + 45 * step) : base.lighter(100 + 30 * step);
}

QCPScatterStyle::ScatterShape markerShape(int index) {
    return kMarkers[std::max(0, index) % kMarkers.size()];
}

Qt::PenStyle worldSizeDash(int index) {
    return kDashes[std::max(0, index) % kDashes.size()];
}

QCPScatterStyle::ScatterShape worldSizeShape(int index) {
    return kMarkers[std::max(0, index) % kWorldSizeShapes];
}

bool spansDecades(const QVector<double>& values) {
    if (values.isEmpty()) {
        return false;
    }
    const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
    // A zero or negative value has no place on a log axis: such data stays linear.
    return *lo > 0 && *hi / *lo > 10.0;
}

void fitAxis(QCPAxis* axis, const QVector<double>& values, bool fromZero, bool allowLog) {
    if (allowLog && spansDecades(values)) {
        axis->setScaleType(QCPAxis::stLogarithmic);
        axis->setTicker(QSharedPointer<ReadableLogTicker>::create(axis));
        axis->setNumberFormat("g");
        axis->setNumberPrecision(4);
        const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
        const double decades = std::max(0.3, std::log10(*hi / *lo));
        axis->setRange(std::pow(10.0, std::log10(*lo) - 0.08 * decades),
                       std::pow(10.0, std::log10(*hi) + kHeadroom * decades));
        return;
    }
    axis->setScaleType(QCPAxis::stLinear);
    axis->setTicker(QSharedPointer<ReadableLinearTicker>::create(axis));
    axis->setNumberFormat("g");
    if (values.isEmpty()) {
        axis->setRange(0, 1);
        return;
    }
    const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
    const double low = fromZero ? std::min(0.0, *lo) : *lo;
    const double span = std::max(*hi - low, std::abs(*hi) * 0.1 + 1e-12);
    axis->setRange(fromZero ? low : low - 0.08 * span, *hi + kHeadroom * span);
}

void integerTicks(QCPAxis* axis, const QVector<double>& at) {
    auto ticker = QSharedPointer<ClearLabels<QCPAxisTickerText>>::create(axis);
    for (double v : at) { // the ticker's map keeps them sorted, each once
        ticker->addTick(v, QString::number(std::llround(v)));
    }
    axis->setTicker(ticker);
    axis->setSubTicks(false);
}

void countTicks(QCPAxis* axis) {
    auto ticker = QSharedPointer<ClearLabels<QCPAxisTickerFixed>>::create(axis);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples); // of its default step, 1
    axis->setTicker(ticker);
    axis->setNumberFormat("f");
    axis->setNumberPrecision(0);
    axis->setSubTicks(false);
}

void categoryTicks(QCPAxis* axis, const QStringList& labels) {
    auto ticker = QSharedPointer<CategoryTicker>::create(axis);
    for (int i = 0; i < labels.size(); ++i) {
        ticker->addTick(double(i + 1), labels[i]);
    }
    axis->setTicker(ticker);
    axis->setSubTicks(false);
}

void categoryRuns(QCPAxis* axis, const QList<QPair<QString, int>>& runs) {
    QCustomPlot* plot = axis->parentPlot();
    QCPAxisRect* rect = axis->axisRect();
    int first = 1;
    for (const auto& [name, length] : runs) {
        if (first > 1) {
            auto* line = new QCPItemStraightLine(plot);
            line->setObjectName(kRunSeparator);
            line->setClipAxisRect(rect);
            for (QCPItemPosition* p : {line->point1, line->point2}) {
                p->setAxes(axis, rect->axis(QCPAxis::atLeft));
            }
            line->point1->setCoords(first - 0.5, 0);
            line->point2->setCoords(first - 0.5, 1);
            line->setPen(QPen(QColor(150, 150, 150), 1, Qt::DashLine));
        }
        QCPItemText* t = textAtTop(axis, first + (length - 1) / 2.0, 0.0, kRunName, name,
                                   axis->tickLabelFont(), QColor(60, 60, 60));
        t->setProperty("fullText", name);
        t->setProperty("categories", length);
        first += length;
    }
}

QCPItemText* categoryRunOf(const QCustomPlot& plot, int key, const QCPAxisRect* panel) {
    const QCPAxisRect* rect = panel ? panel : plot.xAxis->axisRect();
    int first = 1; // the runs' names were made in the categories' order, a panel's together
    for (QCPItemText* t : plot.findChildren<QCPItemText*>(kRunName)) {
        if (t->clipAxisRect() != rect) {
            continue;
        }
        const int length = t->property("categories").toInt();
        if (key >= first && key < first + length) {
            return t;
        }
        first += length;
    }
    return nullptr;
}

void resetFigure(QCustomPlot& plot, const QString& title, const QString& x, const QString& y,
                 const FigureStyle& style) {
    plot.clearPlottables();
    plot.setProperty("eachRepeat", style.eachRepeat);
    plot.clearItems();
    plot.plotLayout()->clear();
    auto* heading = new QCPTextElement(&plot, title, style.font(style.titleDeltaPt, true));
    heading->setObjectName("title");
    heading->setProperty("fullTitle", title);
    heading->setMargins(QMargins(2, 2, 2, 0));
    plot.plotLayout()->addElement(0, 0, heading);
    auto* rect = new QCPAxisRect(&plot);
    plot.plotLayout()->addElement(1, 0, rect);
    plot.plotLayout()->setRowSpacing(0);
    plot.xAxis = rect->axis(QCPAxis::atBottom);
    plot.yAxis = rect->axis(QCPAxis::atLeft);
    plot.xAxis2 = rect->axis(QCPAxis::atTop);
    plot.yAxis2 = rect->axis(QCPAxis::atRight);
    for (QCPAxis* a : {plot.xAxis, plot.yAxis}) {
        a->setTickLabelFont(style.font());
        a->setLabelFont(style.font());
        a->setLabelPadding(2);
    }
    plot.xAxis->setLabel(x);
    plot.yAxis->setLabel(y);
    plot.legend = new QCPLegend;
    rect->insetLayout()->addElement(plot.legend, Qt::AlignTop | Qt::AlignRight);
    plot.legend->setLayer("legend");
    plot.legend->setFont(style.font());
    plot.legend->setIconSize(20, 14);
    plot.legend->setRowSpacing(1);
    plot.legend->setBrush(QColor(255, 255, 255, 235));
    plot.legend->setBorderPen(QPen(QColor(160, 160, 160)));
    plot.legend->setMargins(QMargins(4, 2, 4, 2));
}

bool eachRepeat(const QCustomPlot& plot) {
    return plot.property("eachRepeat").toBool();
}

void setFigureSize(QCustomPlot& plot, QSize size) {
    plot.resize(size);
    plot.setViewport(QRect(QPoint(0, 0), size));
}

QString wrapped(const QString& text, const QFont& font, double widthPx) {
    const QFontMetricsF fm(font);
    QStringList lines;
    for (const QString& paragraph : text.split('\n')) {
        QString line;
        for (const QString& word : paragraph.split(' ', Qt::SkipEmptyParts)) {
            const QString longer = line.isEmpty() ? word : line + ' ' + word;
            if (!line.isEmpty() && fm.horizontalAdvance(longer) > widthPx) {
                lines << line;
                line = word;
            } else {
                line = longer;
            }
        }
        lines << line;
    }
    return lines.join('\n');
}

void fitTitle(QCustomPlot& plot) {
    const int room = plot.viewport().width() - 8;
    for (int i = 0; i < plot.plotLayout()->elementCount(); ++i) {
        auto* t = qobject_cast<QCPTextElement*>(plot.plotLayout()->elementAt(i));
        if (t && t->objectName() == "title") {
            const QString full = t->property("fullTitle").toString();
            t->setText(QFontMetrics(t->font()).elidedText(full, Qt::ElideRight, room));
        } else if (t && t->objectName() == "note") {
            t->setText(wrapped(t->property("fullText").toString(), t->font(),
                               room - t->margins().left() - t->margins().right()));
        }
    }
}

namespace {
// Where data is drawn, in widget pixels: every point of every graph (as a small square), every
// bar, every flagged marker. The legend must avoid all of them.
QVector<QRectF> dataRegions(const QCustomPlot& plot) {
    QVector<QRectF> out;
    for (int i = 0; i < plot.plottableCount(); ++i) {
        const QCPAbstractPlottable* p = const_cast<QCustomPlot&>(plot).plottable(i);
        const QCPAxis* x = p->keyAxis();
        const QCPAxis* y = p->valueAxis();
        if (!x || !y || !p->visible()) {
            continue;
        }
        if (const auto* g = qobject_cast<const QCPGraph*>(p)) {
            const double r = std::max(3.0, g->scatterStyle().size() / 2.0 + 1.0);
            for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it) {
                out << QRectF(x->coordToPixel(it->key) - r, y->coordToPixel(it->value) - r, 2 * r,
                              2 * r);
            }
        } else if (const auto* b = qobject_cast<const QCPBars*>(p)) {
            for (auto it = b->data()->constBegin(); it != b->data()->constEnd(); ++it) {
                const QCPRange v = stackedRange(b, it->key);
                out << QRectF(QPointF(x->coordToPixel(it->key - b->width() / 2),
                                      y->coordToPixel(v.upper)),
                              QPointF(x->coordToPixel(it->key + b->width() / 2),
                                      y->coordToPixel(v.lower)))
                           .normalized();
            }
        }
    }
    for (int i = 0; i < plot.itemCount(); ++i) {
        if (const auto* t = qobject_cast<const QCPItemText*>(plot.item(i))) {
            if (t->objectName() == "flagged" || t->objectName() == kRunName) {
                out << QRectF(t->topLeft->pixelPosition(), t->bottomRight->pixelPosition())
                           .normalized();
            }
        }
    }
    return out;
}

// The main layout's row that holds the axis rect (or the panels it is the first of).
int axesRow(QCustomPlot& plot, const QCPAxisRect* rect) {
    QCPLayoutGrid* main = plot.plotLayout();
    for (int row = 0; row < main->rowCount(); ++row) {
        QCPLayoutElement* e = main->element(row, 0);
        if (e && (e == rect || e->elements(true).contains(const_cast<QCPAxisRect*>(rect)))) {
            return row;
        }
    }
    return -1;
}

// The sum of `px` over the elements of the main layout's rows below the axes.
template <class Px> int sumBelowAxes(QCustomPlot& plot, Px px) {
    QCPLayoutGrid* grid = plot.plotLayout();
    const int axes = axesRow(plot, plot.xAxis->axisRect());
    int sum = 0;
    for (int row = axes + 1; axes >= 0 && row < grid->rowCount(); ++row) {
        if (QCPLayoutElement* e = grid->element(row, 0)) {
            sum += px(*e);
        }
    }
    return sum;
}

// Calls a plottable's legend icon (protected in QCustomPlot, which gives it to its own legend
// item only): the flowed key draws the same icon as a legend row would.
struct IconAccess : QCPAbstractPlottable {
    using QCPAbstractPlottable::drawLegendIcon;
};

// Legend entries flowed into rows of the figure's width, each as wide as its own text: a marker
// key ("bucket_cap_mb: \u25cf 0.25 \u25a0 1 \u25b2 4"), and, where a grid of columns had no room
// for every entry, every entry of the legend in one such key. A legend must name every value the
// figure tells apart: flowed, the entries take the sum of their widths, not the widest's times n.
class FlowKey : public QCPAbstractLegendItem {
public:
    // One entry: a plottable's icon and name, or a marker key's title and markers.
    struct Entry {
        QCPAbstractPlottable* plottable = nullptr;
        QString title;
        QList<LegendMarker> markers;
    };
    FlowKey(QCPLegend* legend, QList<Entry> entries, bool spansFigure = false)
        : QCPAbstractLegendItem(legend), entries_(std::move(entries)), spansFigure_(spansFigure) {}
    // As wide as the rows it flows into, or, for a key that spans the figure below its axes,
    // as its widest piece: that figure's least width (which a splitter sizes it by) never grows
    // with its width.
    QSize minimumOuterSizeHint() const override {
        double width = 0;
        int rows = 1;
        for (const Piece& p : pieces()) {
            width = std::max(width, spansFigure_ ? p.width : p.x + p.width);
            rows = std::max(rows, p.row + 1);
        }
        return {int(std::ceil(width)) + mMargins.left() + mMargins.right(),
                rows * lineHeight() + mMargins.top() + mMargins.bottom()};
    }
    const QList<Entry>& entries() const { return entries_; }

protected:
    void draw(QCPPainter* painter) override {
        painter->setFont(mFont);
        const QRect r = rect();
        for (const Piece& p : pieces()) {
            const QRectF box(r.left() + p.x, r.top() + p.row * lineHeight(), p.width, lineHeight());
            const Entry& e = entries_[p.entry];
            double textLeft = box.left();
            if (e.plottable) {
                const QSize icon = iconSize();
                const QRectF at(box.left(), box.center().y() - icon.height() / 2.0, icon.width(),
                                icon.height());
                painter->save();
                painter->setClipRect(at);
                (e.plottable->*(&IconAccess::drawLegendIcon))(painter, at);
                painter->restore();
                textLeft += icon.width() + kGap;
            } else if (p.marker >= 0) {
                const LegendMarker& m = e.markers[p.marker];
                QCPScatterStyle style(m.shape, m.colour, m.colour, kMarkerPx);
                style.applyTo(painter, QPen(m.colour));
                style.drawShape(painter, box.left() + kMarkerPx / 2.0, box.center().y());
                textLeft += kMarkerPx + kGap;
            }
            painter->setPen(QPen(mTextColor));
            painter->drawText(QRectF(textLeft, box.top(), box.right() - textLeft, box.height()),
                              Qt::AlignLeft | Qt::AlignVCenter, textOf(p));
        }
    }

private:
    static constexpr double kMarkerPx = 7;
    static constexpr double kGap = 3;
    static constexpr double kSpacing = 10;
    struct Piece {
        int entry;
        int marker; // -1: the entry's plottable, or its marker key's title
        int row;
        double x, width;
    };
    // The legend's icon, no taller than a line of the key's text.
    QSize iconSize() const {
        const QSize icon = mParentLegend->iconSize();
        return {icon.width(), std::min(icon.height(), lineHeight() - 2)};
    }
    int lineHeight() const { return QFontMetrics(mFont).height() + 2; }
    QString textOf(const Piece& p) const {
        const Entry& e = entries_[p.entry];
        return e.plottable    ? e.plottable->name()
               : p.marker < 0 ? e.title + ":"
                              : e.markers[p.marker].label;
    }
    // Every piece in order, flowed into rows of the figure's width; a marker key's title and
    // its markers each a piece, so that a long key breaks between markers.
    std::vector<Piece> pieces() const {
        const QFontMetricsF fm(mFont);
        const double room = std::max(80.0, double(mParentPlot->viewport().width()) - 24 -
                                               mMargins.left() - mMargins.right());
        std::vector<Piece> out;
        double x = 0;
        int row = 0;
        const auto place = [&](int entry, int marker, double width, double spacing) {
            if (x > 0 && x + width > room) {
                x = 0;
                ++row;
            }
            out.push_back({entry, marker, row, x, width});
            x += width + spacing;
        };
        for (int e = 0; e < entries_.size(); ++e) {
            const Entry& entry = entries_[e];
            if (entry.plottable) {
                place(e, -1,
                      iconSize().width() + kGap + fm.horizontalAdvance(entry.plottable->name()),
                      kSpacing);
                continue;
            }
            place(e, -1, fm.horizontalAdvance(entry.title + ":"), kGap + 2);
            for (int m = 0; m < entry.markers.size(); ++m) {
                place(e, m, kMarkerPx + kGap + fm.horizontalAdvance(entry.markers[m].label),
                      m + 1 < entry.markers.size() ? kGap + 4 : kSpacing);
            }
        }
        return out;
    }
    QList<Entry> entries_;
    bool spansFigure_;
};

// The entries a legend item holds: a plottable's own, or a flowed key's.
QList<FlowKey::Entry> entriesOf(QCPAbstractLegendItem* item) {
    if (auto* p = qobject_cast<QCPPlottableLegendItem*>(item)) {
        return {{p->plottable(), {}, {}}};
    }
    if (auto* key = dynamic_cast<FlowKey*>(item)) {
        return key->entries();
    }
    return {};
}

constexpr const char* kMergedKey = "mergedLegendKey";
constexpr double kLeastKeyPt = kLeastLabelPt; // a merged key's font shrinks, never below this

// FONT a half point smaller at a time, down to kLeastKeyPt, while TOO_BIG(font) holds: the one
// rule by which keys and category labels give up size before they give up words.
template <class TooBig> void shrinkWhile(QFont& font, TooBig tooBig) {
    while (tooBig(font) && font.pointSizeF() - 0.5 >= kLeastKeyPt) {
        font.setPointSizeF(font.pointSizeF() - 0.5);
    }
}

// Every entry of the legend in one FlowKey, in the legend's order; the plottables leave the
// legend (restoreLegend brings them back, numbered) and a marker key's markers go into it.
FlowKey* mergeLegend(QCPLegend& legend) {
    QList<FlowKey::Entry> entries;
    QList<QCPAbstractLegendItem*> merged;
    for (int i = 0; i < legend.itemCount(); ++i) {
        if (const QList<FlowKey::Entry> held = entriesOf(legend.item(i)); !held.isEmpty()) {
            entries.append(held);
            merged << legend.item(i);
        }
    }
    for (QCPAbstractLegendItem* item : merged) {
        legend.removeItem(item);
    }
    legend.simplify();
    auto* key = new FlowKey(&legend, entries, true);
    key->setObjectName(kMergedKey);
    legend.addItem(key);
    return key;
}

// Undoes mergeLegend: the marker keys it held are keys of their own again (at the end; the
// plottables come back before them).
void unmergeLegend(QCPLegend& legend) {
    for (int i = legend.itemCount() - 1; i >= 0; --i) {
        auto* key = dynamic_cast<FlowKey*>(legend.item(i));
        if (!key || key->objectName() != kMergedKey) {
            continue;
        }
        QList<FlowKey::Entry> markerKeys;
        std::ranges::copy_if(key->entries(), std::back_inserter(markerKeys),
                             [](const FlowKey::Entry& e) { return !e.plottable; });
        legend.removeItem(key);
        legend.simplify();
        for (const FlowKey::Entry& e : markerKeys) {
            legend.addItem(new FlowKey(&legend, {e}));
        }
    }
}

// Every entry the figure put in its legend, in its order: numbered at the first placement (a
// plottable's property), so that entries left out at one size come back, in place, at another.
void restoreLegend(QCustomPlot& plot) {
    QCPLegend* legend = plot.legend;
    unmergeLegend(*legend);
    QMap<int, QCPAbstractPlottable*> numbered;
    for (int i = 0; i < plot.plottableCount(); ++i) {
        const QVariant rank = plot.plottable(i)->property(kLegendRank);
        if (rank.isValid()) {
            numbered.insert(rank.toInt(), plot.plottable(i));
        }
    }
    // Entries added since (a new rank's line) are numbered after the others.
    int next = numbered.isEmpty() ? 0 : numbered.lastKey() + 1;
    for (int i = 0; i < legend->itemCount(); ++i) {
        auto* item = qobject_cast<QCPPlottableLegendItem*>(legend->item(i));
        if (item && !item->plottable()->property(kLegendRank).isValid()) {
            item->plottable()->setProperty(kLegendRank, next);
            numbered.insert(next++, item->plottable());
        }
    }
    for (QCPAbstractPlottable* p : numbered) {
        p->removeFromLegend(legend);
    }
    for (QCPAbstractPlottable* p : numbered) {
        p->addToLegend(legend);
    }
}

// The height a legend may take: a share of the figure, or what an export that grows its page
// by the legend allows (the plot's property "legendRoomPx").
double legendRoomPx(const QCustomPlot& plot) {
    const QVariant room = plot.property("legendRoomPx");
    return room.isValid() ? room.toDouble() : plot.viewport().height() * kLegendShare;
}

// The most columns the legend's entries fit in side by side (filled row by row, each column as
// wide as its widest entry): short entries share a row with long ones.
int legendColumns(QCPLegend& legend, int widthPx) {
    QVector<int> widths;
    for (int i = 0; i < legend.itemCount(); ++i) {
        if (QCPAbstractLegendItem* item = legend.item(i)) {
            widths << item->minimumOuterSizeHint().width() + legend.columnSpacing() + 4;
        }
    }
    for (int columns = int(widths.size()); columns > 1; --columns) {
        QVector<int> column(columns, 0);
        for (int i = 0; i < widths.size(); ++i) {
            column[i % columns] = std::max(column[i % columns], widths[i]);
        }
        if (std::accumulate(column.begin(), column.end(), 0) <= widthPx) {
            return columns;
        }
    }
    return 1;
}

constexpr const char* kLegendColumn = "legendColumn";

// The column a legend beside the axes sits in, with what fills it under the legend.
void dropLegendColumn(QCustomPlot& plot) {
    QCPLayoutGrid* main = plot.plotLayout();
    for (int i = main->elementCount() - 1; i >= 0; --i) {
        if (QCPLayoutElement* e = main->elementAt(i); e && e->objectName() == kLegendColumn) {
            main->remove(e);
        }
    }
}

// Right of the axes in one column, when the entries fit the axes' height and the column takes
// a smaller share of the figure's width than the legend below would of its height (a wide,
// low figure: a study's panels in a row on a laptop screen). An export never gets here with a
// width share as small.
bool placeBeside(QCustomPlot& plot, QCPLegend& legend, const QCPAxisRect* rect, int heightPx,
                 double belowShare) {
    const int row = axesRow(plot, rect);
    if (row < 0 || heightPx > plot.plotLayout()->element(row, 0)->outerRect().height()) {
        return false;
    }
    legend.setWrap(0);
    legend.setFillOrder(QCPLayoutGrid::foRowsFirst, true);
    legend.simplify();
    const int widthPx = legend.minimumOuterSizeHint().width() + 4;
    const double share = double(widthPx) / plot.viewport().width();
    if (share >= belowShare || share > 1.0 / 3) {
        return false;
    }
    auto* column = new QCPLayoutGrid;
    column->setObjectName(kLegendColumn);
    plot.plotLayout()->addElement(row, 1, column);
    plot.plotLayout()->setColumnStretchFactor(1, 0.001);
    column->addElement(0, 0, &legend);
    column->addElement(1, 0, new QCPLayoutElement(&plot)); // takes the height under it
    column->setRowStretchFactor(0, 0.001);
    plot.replot(QCustomPlot::rpImmediateRefresh);
    return true;
}

// A name in lines of at most widthPx, broken after an underscore or at a space ("fp16_" over
// "compress"), each line still too long cut at its end.
QString brokenToWidth(const QString& text, const QFont& font, double widthPx) {
    const QFontMetricsF fm(font);
    if (fm.horizontalAdvance(text) <= widthPx) {
        return text;
    }
    QStringList pieces{QString()};
    for (const QChar c : text) {
        pieces.back() += c;
        if (c == '_' || c == ' ') {
            pieces << QString();
        }
    }
    QStringList lines{QString()};
    for (const QString& piece : pieces) {
        if (!lines.back().isEmpty() && fm.horizontalAdvance(lines.back() + piece) > widthPx) {
            lines << QString();
        }
        lines.back() += piece;
    }
    for (QString& line : lines) {
        line = fm.elidedText(line.trimmed(), Qt::ElideRight, std::max(widthPx, 0.0));
    }
    return lines.join('\n');
}

// The category labels' font at the figure's size (fitCategoryLabels may have made the axis's
// smaller at an earlier layout); any other axis's own.
QFont categoryBaseFont(const QCPAxis& axis) {
    QFont font = axis.tickLabelFont();
    if (const auto ticker = axis.ticker().dynamicCast<CategoryTicker>()) {
        font.setPointSizeF(ticker->basePt());
    }
    return font;
}

// The category labels in smaller text, a half point at a time down to kLeastKeyPt, while a word
// of one is wider than the room across the axis (a word cut in its middle no longer tells its
// bar from the others; a wider room would take the plot area's height), and, where the axes are
// laid out, while the labels are too many for the axis's length. Each panel's axis on its own.
void fitCategoryLabels(QCustomPlot& plot) {
    for (QCPAxisRect* rect : plot.axisRects()) {
        QCPAxis* axis = rect->axis(QCPAxis::atBottom);
        const auto ticker = axis->ticker().dynamicCast<CategoryTicker>();
        if (!ticker) {
            continue;
        }
        QFont font = categoryBaseFont(*axis);
        const double room = ticker->roomPx();
        shrinkWhile(font, [&](const QFont& f) {
            return ticker->widestWordPx(f) > room || ticker->thinned(f);
        });
        axis->setTickLabelFont(font);
    }
}

// Each categoryRuns name fitted to its run's width, as the axes are now laid out, every name of
// the figure in one size: the largest at which each reads on one line, down to kLeastKeyPt.
// Where a name is too wide even at that size, the names keep theirs and that one is broken into
// lines, a half point smaller at a time down to kLeastKeyPt while a piece is still too wide.
void fitRunNames(QCustomPlot& plot) {
    struct Name {
        QCPItemText* item;
        QString full;
        double room; // px
    };
    std::vector<Name> names;
    QFont common;
    for (QCPItemText* t : plot.findChildren<QCPItemText*>(kRunName)) {
        const QCPAxis* axis = t->position->keyAxis();
        const double perCategory = axis->axisRect()->width() / std::max(axis->range().size(), 1.0);
        names.push_back({t, t->property("fullText").toString(),
                         t->property("categories").toInt() * perCategory - 4});
        common = categoryBaseFont(*axis);
    }
    const auto anyTooWide = [&names](const QFont& f) {
        const QFontMetricsF fm(f);
        return std::any_of(names.begin(), names.end(),
                           [&](const Name& n) { return fm.horizontalAdvance(n.full) > n.room; });
    };
    const QFont base = common;
    shrinkWhile(common, anyTooWide);
    if (anyTooWide(common)) {
        common = base; // smaller text would not spare the break: every name keeps its size
    }
    for (const Name& n : names) {
        QFont font = common;
        shrinkWhile(font, [&](const QFont& f) {
            return brokenToWidth(n.full, f, n.room).contains(QChar(0x2026));
        });
        n.item->setFont(font);
        n.item->setText(brokenToWidth(n.full, font, n.room));
    }
}

struct LegendCount {
    int items = 0;
    int tallest = 1; // px, the tallest item
};

// The legend back in the axis rect's top right corner, in one column, with every entry the
// figure gave it (restoreLegend), counted.
LegendCount resetLegend(QCustomPlot& plot, QCPLegend& legend, QCPAxisRect& rect) {
    if (legend.layout() != rect.insetLayout()) {
        if (QCPLayout* holder = legend.layout()) {
            holder->take(&legend);
        }
        dropLegendColumn(plot);
        plot.plotLayout()->simplify();
        rect.insetLayout()->addElement(&legend, Qt::AlignTop | Qt::AlignRight);
        legend.setWrap(0); // one column again inside the axis rect
        legend.setFillOrder(QCPLayoutGrid::foRowsFirst, true);
        legend.simplify();
    }
    arrangeFacets(plot); // with the legend out of the panels' grid
    restoreLegend(plot);
    LegendCount count;
    for (int i = 0; i < legend.itemCount(); ++i) {
        if (QCPAbstractLegendItem* item = legend.item(i)) { // a wrapped grid has empty cells
            // An item clips to its rectangle: room below the text keeps underscores visible.
            item->setMargins(QMargins(0, 0, 0, 3));
            ++count.items;
            count.tallest = std::max(count.tallest, item->minimumOuterSizeHint().height());
        }
    }
    return count;
}

// The first corner of the axis rect where the legend covers no data, within a third of the
// figure's height; false when there is none.
bool placeInCorner(QCustomPlot& plot, QCPLegend& legend, QCPAxisRect& rect) {
    const auto index = int(rect.insetLayout()->elements(false).indexOf(&legend));
    for (const Qt::Alignment corner :
         {Qt::AlignTop | Qt::AlignRight, Qt::AlignTop | Qt::AlignLeft,
          Qt::AlignBottom | Qt::AlignRight, Qt::AlignBottom | Qt::AlignLeft}) {
        rect.insetLayout()->setInsetAlignment(index, corner);
        plot.replot(QCustomPlot::rpImmediateRefresh); // lays out the legend and the axes
        // A few pixels of air: a legend touching a point reads as covering it.
        const QRectF box = QRectF(legend.outerRect()).adjusted(-6, -6, 6, 6);
        const QVector<QRectF> data = dataRegions(plot);
        // Inside the axes a legend hides what it covers: a third of the figure at most, even
        // where an export lets one below the axes grow the page by more.
        const double inside = std::min(legendRoomPx(plot), plot.viewport().height() / 3.0);
        if (legend.outerRect().height() <= inside && box.width() < rect.width() &&
            std::none_of(data.begin(), data.end(),
                         [&](const QRectF& r) { return r.intersects(box); })) {
            return true;
        }
    }
    return false;
}

// Every entry in one key flowed across the figure's width (mergeLegend), its text a half point
// smaller at a time, down to kLeastKeyPt, until it fits `roomPx`. Nothing is left out: a key
// that still does not fit takes more of the figure.
void flowEveryEntry(QCPLegend& legend, double roomPx) {
    FlowKey* key = mergeLegend(legend);
    key->setMargins(QMargins(0, 0, 0, 3));
    QFont font = legend.font();
    shrinkWhile(font, [&](const QFont& f) {
        key->setFont(f);
        return key->minimumOuterSizeHint().height() > roomPx;
    });
    key->setFont(font);
}

// Below the axis rect, in as many columns as fit, in as many rows as the legend's room holds
// (every entry flowed into one key where the columns hold too few); or beside it, where that
// costs less of a wide figure.
void placeOutside(QCustomPlot& plot, QCPLegend& legend, QCPAxisRect& rect, LegendCount count) {
    rect.insetLayout()->take(&legend);
    int columns = legendColumns(legend, plot.viewport().width() - 4);
    const int rowPx = count.tallest + legend.rowSpacing();
    const int margins = legend.margins().top() + legend.margins().bottom();
    const int rows = std::max(1, int(legendRoomPx(plot) - margins) / rowPx);
    const int rowsBelow = std::min(rows, (count.items + columns - 1) / columns);
    if (placeBeside(plot, legend, &rect, count.items * rowPx + margins,
                    double(rowsBelow * rowPx + margins) / plot.viewport().height())) {
        return;
    }
    if (count.items > rows * columns) {
        flowEveryEntry(legend, legendRoomPx(plot) - margins);
        count.items = columns = 1;
    }
    legend.setWrap(std::clamp(columns, 1, count.items));
    legend.setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
    plot.plotLayout()->addElement(plot.plotLayout()->rowCount(), 0, &legend);
    plot.plotLayout()->setRowStretchFactor(plot.plotLayout()->rowCount() - 1, 0.001);
    plot.replot(QCustomPlot::rpImmediateRefresh);
}

} // namespace

int heightBelowAxes(QCustomPlot& plot) {
    plot.replot(QCustomPlot::rpImmediateRefresh); // lays the elements out
    return sumBelowAxes(plot,
                        [](QCPLayoutElement& e) { return e.minimumOuterSizeHint().height(); });
}

int squeezedBelowAxes(QCustomPlot& plot) {
    // Laid out twice: a key that flows into rows knows its height at its width after one layout.
    plot.replot(QCustomPlot::rpImmediateRefresh);
    plot.replot(QCustomPlot::rpImmediateRefresh);
    return sumBelowAxes(plot, [](QCPLayoutElement& e) {
        return std::max(0, e.minimumOuterSizeHint().height() - e.outerRect().height());
    });
}

QCPTextElement* addNote(QCustomPlot& plot, const QString& text, const FigureStyle& style) {
    auto* note = new QCPTextElement(&plot, text, style.font());
    note->setObjectName("note");
    note->setProperty("fullText", text);
    note->setTextColor(QColor(90, 90, 90));
    note->setMargins(QMargins(4, 0, 4, 2));
    plot.plotLayout()->addElement(plot.plotLayout()->rowCount(), 0, note);
    plot.plotLayout()->setRowStretchFactor(plot.plotLayout()->rowCount() - 1, 0.001);
    fitTitle(plot);
    return note;
}

void addMarkerKey(QCustomPlot& plot, const QString& title, const QList<LegendMarker>& markers) {
    if (markers.isEmpty() || !plot.legend) {
        return;
    }
    plot.legend->addItem(new FlowKey(plot.legend, {{nullptr, title, markers}}));
}

QString markerKeyText(const QCustomPlot& plot) {
    for (int i = 0; plot.legend && i < plot.legend->itemCount(); ++i) {
        for (const FlowKey::Entry& e : entriesOf(plot.legend->item(i))) {
            if (!e.plottable) {
                return (QStringList{e.title + ":"} +
                        spec::mapped<QStringList>(e.markers,
                                                  [](const LegendMarker& m) { return m.label; }))
                    .join(' ');
            }
        }
    }
    return {};
}

QList<QCPAbstractPlottable*> legendPlottables(const QCustomPlot& plot) {
    QList<QCPAbstractPlottable*> out;
    for (int i = 0; plot.legend && plot.legend->visible() && i < plot.legend->itemCount(); ++i) {
        for (const FlowKey::Entry& e : entriesOf(plot.legend->item(i))) {
            if (e.plottable) {
                out << e.plottable;
            }
        }
    }
    return out;
}

QStringList legendNames(const QCustomPlot& plot) {
    return spec::mapped<QStringList>(legendPlottables(plot),
                                     [](const QCPAbstractPlottable* p) { return p->name(); });
}

void placeLegend(QCustomPlot& plot) {
    fitTitle(plot);
    QCPLegend* legend = plot.legend;
    QCPAxisRect* rect = plot.xAxis ? plot.xAxis->axisRect() : nullptr;
    if (!legend || !rect) {
        return;
    }
    fitCategoryLabels(plot);
    const LegendCount count = resetLegend(plot, *legend, *rect);
    legend->setVisible(count.items > 0);
    // A first layout, so that tickers fitting their labels to the axis length (the category
    // and size axes) see the real length in the replots below.
    plot.replot(QCustomPlot::rpImmediateRefresh);
    fitCategoryLabels(plot); // at the axes' lengths now known
    fitRunNames(plot);
    if (!legend->visible()) {
        plot.replot();
        return;
    }
    if (!placeInCorner(plot, *legend, *rect)) {
        placeOutside(plot, *legend, *rect, count);
    }
}

QCPItemText* addFlaggedMarker(QCustomPlot& plot, double x, const QString& cellId,
                              const QString& status, QCPAxisRect* panel) {
    QCPAxisRect* rect = panel ? panel : plot.xAxis->axisRect();
    QFont f = plot.xAxis->tickLabelFont();
    f.setBold(true);
    QCPItemText* t = textAtTop(rect->axis(QCPAxis::atBottom), x, kFlaggedBandY, "flagged",
                               QString::fromUtf8("\u00d7 ") + status, f, flaggedColour());
    t->setProperty("cellId", cellId);
    t->setTextAlignment(Qt::AlignHCenter);
    return t;
}

void sayWhenEmpty(QCustomPlot& plot, const QString& text, const FigureStyle& style) {
    for (int i = 0; i < plot.plottableCount(); ++i) {
        if (const QCPPlottableInterface1D* d = plot.plottable(i)->interface1D();
            d && d->dataCount() > 0) {
            return;
        }
    }
    auto* empty = new QCPItemText(&plot);
    empty->setObjectName("empty");
    empty->position->setType(QCPItemPosition::ptAxisRectRatio);
    empty->position->setAxisRect(plot.xAxis->axisRect());
    empty->position->setCoords(0.5, 0.5);
    empty->setFont(style.font());
    // Wrapped to the axes' likely width (the figure's less the axis labels): a long line
    // centred in narrow axes would run off the page.
    // A plot not laid out yet (a view's, before it is shown) keeps the lines as given.
    const int width = plot.viewport().width();
    empty->setText(width > kLaidOutPx ? wrapped(text, style.font(), width * kEmptyTextShare)
                                      : text);
}

QCPBars* addBars(QCPAxis* keys, QCPAxis* values, const QString& name, const QColor& colour) {
    auto* b = new QCPBars(keys, values);
    b->setName(name);
    b->setBrush(colour);
    b->setPen(QPen(colour.darker(130)));
    b->setWidth(kBarWidth);
    return b;
}

void addFlaggedLegendEntry(QCustomPlot& plot) {
    if (!plot.findChild<QCPItemText*>("flagged")) {
        return; // no marker to explain
    }
    QCPGraph* g = plot.addGraph();
    g->setName("\u00d7 incomplete / failed: no data");
    g->setLineStyle(QCPGraph::lsNone);
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCross, flaggedColour(), 8));
}

QCPErrorBars* addSpread(QCPAbstractPlottable* of, const QColor& colour) {
    auto* bars = new QCPErrorBars(of->keyAxis(), of->valueAxis());
    bars->setDataPlottable(of);
    bars->setPen(QPen(colour.darker(140), 1.2));
    bars->setWhiskerWidth(6);
    bars->removeFromLegend();
    return bars;
}

void addSpreadPoint(QCPErrorBars* bars, double at, double low, double high) {
    bars->addData(std::max(0.0, at - low), std::max(0.0, high - at));
}

void addSpreadLegendEntry(QCustomPlot& plot, int mostRepeats) {
    if (mostRepeats > 1) {
        QCPGraph* g = plot.addGraph();
        g->setName(QString("median; whiskers: min to max of %1 repeats").arg(mostRepeats));
        g->setPen(Qt::NoPen);
    }
}

} // namespace commprof::widgets
