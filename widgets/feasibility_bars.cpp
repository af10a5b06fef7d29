#include "feasibility_bars.h"

#include <QPainter>

#include <algorithm>

namespace commprof::widgets {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
const QList<QColor> kTermColours{QColor(31, 119, 180),  QColor(255, 127, 14),  QColor(44, 160, 44),
                                 QColor(214, 39, 40),   QColor(148, 103, 189), QColor(140, 86, 75),
                                 QColor(227, 119, 194), QColor(127, 127, 127)};

} // namespace

FeasibilityBars::FeasibilityBars(QWidget* parent) : QWidget(parent) {
    setMinimumHeight(110);
}

void FeasibilityBars::setEstimate(const QString& cellId,
                                  const feasibility::FootprintEstimate& estimate) {
    cellId_ = cellId;
    estimate_ = estimate;
    hasEstimate_ = true;
    update();
}

void FeasibilityBars::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    if (!hasEstimate_) {
        p.drawText(rect(), Qt::AlignCenter, "no cell");
        return;
    }
    const int left = 70, right = 10, barH = 26;
    const int w = width() - left - right;
    p.drawText(QRect(4, 2, width() - 8, 18), Qt::AlignLeft | Qt::AlignVCenter,
               QString("%1: %2").arg(
                   cellId_, estimate_.feasible ? "feasible" : "infeasible - " + estimate_.reason));
    int y = 26;
    for (const feasibility::Demand* d : {&estimate_.host, &estimate_.device}) {
        if (!d->used) {
            continue;
        }
        // The scale holds both the demand and the budget, so an overflow is visible.
        const double scale = std::max({d->total(), d->budgetBytes, 1.0}) * 1.05;
        p.setPen(palette().text().color());
        p.drawText(QRect(4, y, left - 8, barH), Qt::AlignLeft | Qt::AlignVCenter,
                   feasibility::toString(d->pool));
        double x = left;
        int colour = 0;
        for (const auto& term : d->terms) {
            const double tw = w * term.bytes / scale;
            p.fillRect(QRectF(x, y, tw, barH), kTermColours[colour++ % kTermColours.size()]);
            if (tw > 60) {
                p.setPen(Qt::white);
                p.drawText(QRectF(x + 3, y, tw - 6, barH), Qt::AlignLeft | Qt::AlignVCenter,
                           term.name);
            }
            x += tw;
        }
        // The budget: a vertical line, red when the demand passes it.
        const double bx = left + w * d->budgetBytes / scale;
        p.setPen(QPen(d->total() > d->budgetBytes ? Qt::red : Qt::black, 2));
        p.drawLine(QPointF(bx, y - 3), QPointF(bx, y + barH + 3));
        if (estimate_.binding == d->pool) {
            p.setPen(QPen(QColor(200, 30, 30), 2, Qt::DashLine));
            p.drawRect(QRectF(left - 2, y - 2, w + 4, barH + 4));
        }
        p.setPen(palette().text().color());
        p.drawText(QRect(left, y + barH + 2, w, 16), Qt::AlignLeft,
                   QString("%1 of %2 GiB%3")
                       .arg(d->total() / kGiB, 0, 'f', 2)
                       .arg(d->budgetBytes / kGiB, 0, 'f', 2)
                       .arg(estimate_.binding == d->pool ? "  (binding)" : ""));
        y += barH + 24;
    }
}

} // namespace commprof::widgets
