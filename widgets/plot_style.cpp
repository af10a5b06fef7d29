// SPDX-License-Identifier: GPL-3.0-or-later
#include "plot_style.h"

#include "spec/layers.h"

#include <QHash>
#include <QtMath>

#include <algorithm>
#include <cmath>

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
const QList<QCPScatterStyle::ScatterShape> kShapes{
    QCPScatterStyle::ssDisc, QCPScatterStyle::ssSquare, QCPScatterStyle::ssTriangle,
    QCPScatterStyle::ssDiamond, QCPScatterStyle::ssTriangleInverted};

constexpr double kHeadroom = 0.22; // of the range above the data: room for the flagged band
constexpr double kFlaggedBandY = 0.02;

QRectF around(QPointF p, double radius) {
    return {p.x() - radius, p.y() - radius, 2 * radius, 2 * radius};
}

// The value range of a bar stacked on others: from the top of the bars below to its own top.
QCPRange stackedRange(const QCPBars* bars, double key) {
    double base = 0;
    for (const QCPBars* below = bars->barBelow(); below; below = below->barBelow()) {
        for (auto it = below->data()->findBegin(key); it != below->data()->constEnd(); ++it) {
            if (it->key == key) {
                base += it->value;
                break;
            }
        }
    }
    for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it) {
        if (it->key == key) {
            return {base, base + it->value};
        }
    }
    return {base, base};
}

// Keeps every k-th category, k the least that leaves room between neighbouring labels along
// the axis. A rotated label takes its bounding box's width: what its neighbour must clear.
class CategoryTicker : public QCPAxisTickerText {
public:
    explicit CategoryTicker(const QCPAxis* axis) : axis_(axis) {}

protected:
    QVector<double> createTickVector(double tickStep, const QCPRange& range) override {
        QVector<double> all = QCPAxisTickerText::createTickVector(tickStep, range);
        const QCPAxisRect* rect = axis_->axisRect();
        const double lengthPx =
            axis_->orientation() == Qt::Horizontal ? rect->width() : rect->height();
        if (all.size() < 2 || lengthPx <= 0 || range.size() <= 0) {
            return all;
        }
        const QFontMetricsF fm(axis_->tickLabelFont());
        const double angle = qDegreesToRadians(std::abs(axis_->tickLabelRotation()));
        double need = 0;
        for (double key : all) {
            const QRectF box = fm.boundingRect(QRectF(), Qt::TextDontClip, ticks().value(key));
            const double along =
                axis_->orientation() == Qt::Horizontal
                    ? box.width() * std::cos(angle) + box.height() * std::sin(angle)
                    : box.height() * std::cos(angle) + box.width() * std::sin(angle);
            need = std::max(need, along + kGapPx);
        }
        const double perCategoryPx = lengthPx / range.size();
        const int every = std::max(1, int(std::ceil(need / perCategoryPx)));
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

private:
    static constexpr double kGapPx = 4.0;
    const QCPAxis* axis_;
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

Qt::PenStyle worldSizeDash(int index) {
    return kDashes[std::max(0, index) % kDashes.size()];
}

QCPScatterStyle::ScatterShape worldSizeShape(int index) {
    return kShapes[std::max(0, index) % kShapes.size()];
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
        auto ticker = QSharedPointer<QCPAxisTickerLog>::create();
        ticker->setLogBase(10);
        ticker->setSubTickCount(8);
        axis->setTicker(ticker);
        axis->setNumberFormat("g");
        axis->setNumberPrecision(4);
        const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
        const double decades = std::max(0.3, std::log10(*hi / *lo));
        axis->setRange(std::pow(10.0, std::log10(*lo) - 0.08 * decades),
                       std::pow(10.0, std::log10(*hi) + kHeadroom * decades));
        return;
    }
    axis->setScaleType(QCPAxis::stLinear);
    axis->setTicker(QSharedPointer<QCPAxisTicker>::create());
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
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    QVector<double> sorted = at;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    for (double v : sorted) {
        ticker->addTick(v, QString::number(std::llround(v)));
    }
    axis->setTicker(ticker);
    axis->setSubTicks(false);
}

void countTicks(QCPAxis* axis) {
    auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();
    ticker->setTickStep(1.0);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
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

void resetFigure(QCustomPlot& plot, const QString& title, const QString& x, const QString& y,
                 const FigureStyle& style) {
    plot.clearPlottables();
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
    plot.legend->setVisible(true);
    plot.legend->setFont(style.font());
    plot.legend->setIconSize(20, 14);
    plot.legend->setRowSpacing(1);
    plot.legend->setBrush(QColor(255, 255, 255, 235));
    plot.legend->setBorderPen(QPen(QColor(160, 160, 160)));
    plot.legend->setMargins(QMargins(4, 2, 4, 2));
}

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
                out << around({x->coordToPixel(it->key), y->coordToPixel(it->value)}, r);
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
            if (t->objectName() == "flagged") {
                out << QRectF(t->topLeft->pixelPosition(), t->bottomRight->pixelPosition())
                           .normalized();
            }
        }
    }
    return out;
}

void setFigureSize(QCustomPlot& plot, QSize size) {
    plot.resize(size);
    plot.setViewport(QRect(QPoint(0, 0), size));
}

namespace {

// Lines of at most widthPx, broken at spaces (a word longer than a line stays whole).
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

} // namespace

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

int heightBelowAxes(QCustomPlot& plot) {
    plot.replot(QCustomPlot::rpImmediateRefresh); // lays the elements out
    QCPLayoutGrid* grid = plot.plotLayout();
    int below = 0;
    bool past = false;
    for (int row = 0; row < grid->rowCount(); ++row) {
        QCPLayoutElement* e = grid->element(row, 0);
        if (!e) {
            continue;
        }
        if (past) {
            below += e->minimumOuterSizeHint().height();
        }
        past = past || e == plot.axisRect();
    }
    return below;
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

void placeLegend(QCustomPlot& plot) {
    fitTitle(plot);
    QCPLegend* legend = plot.legend;
    QCPAxisRect* rect = plot.axisRect();
    if (!legend || !rect) {
        return;
    }
    if (legend->layout() != rect->insetLayout()) {
        plot.plotLayout()->take(legend);
        plot.plotLayout()->simplify();
        rect->insetLayout()->addElement(legend, Qt::AlignTop | Qt::AlignRight);
        legend->setWrap(0); // one column again inside the axis rect
        legend->setFillOrder(QCPLayoutGrid::foRowsFirst, true);
        legend->simplify();
    }
    int items = 0;
    int widest = 1;
    for (int i = 0; i < legend->itemCount(); ++i) {
        if (QCPAbstractLegendItem* item = legend->item(i)) { // a wrapped grid has empty cells
            // An item clips to its rectangle: room below the text keeps underscores visible.
            item->setMargins(QMargins(0, 0, 0, 2));
            ++items;
            widest = std::max(widest, item->minimumOuterSizeHint().width() + 8);
        }
    }
    legend->setVisible(items > 0);
    // A first layout, so that tickers fitting their labels to the axis length (the category
    // and size axes) see the real length in the replots below.
    plot.replot(QCustomPlot::rpImmediateRefresh);
    if (!legend->visible()) {
        plot.replot();
        return;
    }
    int index = 0;
    while (index < rect->insetLayout()->elementCount() &&
           rect->insetLayout()->elementAt(index) != legend) {
        ++index;
    }
    for (const Qt::Alignment corner :
         {Qt::AlignTop | Qt::AlignRight, Qt::AlignTop | Qt::AlignLeft,
          Qt::AlignBottom | Qt::AlignRight, Qt::AlignBottom | Qt::AlignLeft}) {
        rect->insetLayout()->setInsetAlignment(index, corner);
        plot.replot(QCustomPlot::rpImmediateRefresh); // lays out the legend and the axes
        // A few pixels of air: a legend touching a point reads as covering it.
        const QRectF box = QRectF(legend->outerRect()).adjusted(-6, -6, 6, 6);
        const QVector<QRectF> data = dataRegions(plot);
        if (std::none_of(data.begin(), data.end(),
                         [&](const QRectF& r) { return r.intersects(box); })) {
            return;
        }
    }
    // No free corner: below the axis rect, in as many columns as fit.
    rect->insetLayout()->take(legend);
    legend->setWrap(std::clamp(plot.viewport().width() / widest, 1, items));
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
    plot.plotLayout()->addElement(plot.plotLayout()->rowCount(), 0, legend);
    plot.plotLayout()->setRowStretchFactor(plot.plotLayout()->rowCount() - 1, 0.001);
    plot.replot(QCustomPlot::rpImmediateRefresh);
}

QCPItemText* addFlaggedMarker(QCustomPlot& plot, double x, const QString& cellId,
                              const QString& status) {
    auto* t = new QCPItemText(&plot);
    t->setObjectName("flagged");
    t->setProperty("cellId", cellId);
    t->position->setAxes(plot.xAxis, plot.yAxis);
    t->position->setAxisRect(plot.axisRect());
    t->position->setTypeX(QCPItemPosition::ptPlotCoords);
    t->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    t->position->setCoords(x, kFlaggedBandY);
    t->setPositionAlignment(Qt::AlignTop | Qt::AlignHCenter);
    t->setTextAlignment(Qt::AlignHCenter);
    QFont f = plot.xAxis->tickLabelFont();
    f.setBold(true);
    t->setFont(f);
    t->setColor(flaggedColour());
    t->setText(QString::fromUtf8("\u00d7 ") + status);
    t->setPadding(QMargins(2, 1, 2, 1));
    t->setClipToAxisRect(true);
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
    empty->position->setCoords(0.5, 0.5);
    empty->setFont(style.font());
    empty->setText(text);
}

void addFlaggedLegendEntry(QCustomPlot& plot) {
    QCPGraph* g = plot.addGraph();
    g->setName("\u00d7 incomplete / failed: no data");
    g->setLineStyle(QCPGraph::lsNone);
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCross, flaggedColour(), 8));
}

} // namespace commprof::widgets
