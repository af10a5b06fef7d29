// SPDX-License-Identifier: GPL-3.0-or-later
#include "feasibility_bars.h"

#include "spec/units.h"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

namespace commprof::widgets {
namespace {

constexpr int kBarHeight = 24;
constexpr int kCaption = 18;
const QList<QColor> kTermColours{QColor(31, 119, 180),  QColor(255, 127, 14),  QColor(44, 160, 44),
                                 QColor(214, 39, 40),   QColor(148, 103, 189), QColor(140, 86, 75),
                                 QColor(227, 119, 194), QColor(127, 127, 127)};

QString gib(double bytes) {
    return QString::number(bytes / spec::kGiB, 'f', 2) + " GiB";
}

// Where the bars go: left of them the pool's name, right a margin.
struct BarGeometry {
    int left;
    int width;
};

BarGeometry barGeometry(const QWidget& w) {
    const int left = w.fontMetrics().horizontalAdvance("device") + 14;
    return {left, std::max(10, w.width() - left - 10)};
}

double scaleOf(const feasibility::Demand& d) {
    // The scale holds both the demand and the budget, so an overflow is visible.
    return std::max({d.total(), d.budgetBytes, 1.0}) * 1.05;
}

} // namespace

FeasibilityBars::FeasibilityBars(QWidget* parent) : QWidget(parent) {
    setMinimumHeight(2 * kCaption + kBarHeight + 12);
}

QSize FeasibilityBars::sizeHint() const {
    return {520, kCaption + 2 * (kBarHeight + kCaption + 8) + 8};
}

void FeasibilityBars::setEstimate(const QString& cellId,
                                  const feasibility::FootprintEstimate& estimate) {
    cellId_ = cellId;
    estimate_ = estimate;
    hasEstimate_ = true;
    update();
}

void FeasibilityBars::clear() {
    hasEstimate_ = false;
    update();
}

QString FeasibilityBars::caption(const feasibility::Demand& d) const {
    if (d.budgetBytes <= 0) {
        return QString("needs %1; no %2 memory to give (budget 0)")
            .arg(gib(d.total()), feasibility::toString(d.pool));
    }
    return QString("%1 of %2 (%3 %)")
        .arg(gib(d.total()), gib(d.budgetBytes))
        .arg(d.total() / d.budgetBytes * 100.0, 0, 'f', 0);
}

std::vector<FeasibilityBars::Segment> FeasibilityBars::segments() const {
    std::vector<Segment> out;
    if (!hasEstimate_) {
        return out;
    }
    const BarGeometry g = barGeometry(*this);
    int y = kCaption + 6;
    for (const feasibility::Demand* d : {&estimate_.host, &estimate_.device}) {
        if (!d->used) {
            continue;
        }
        const double scale = scaleOf(*d);
        double x = g.left;
        for (const auto& term : d->terms) {
            const double tw = g.width * term.bytes / scale;
            out.push_back({QRectF(x, y, tw, kBarHeight),
                           QString("%1: %2 (%3)")
                               .arg(term.name, gib(term.bytes), feasibility::toString(d->pool)),
                           term.bytes});
            x += tw;
        }
        y += kBarHeight + kCaption + 8;
    }
    return out;
}

QString FeasibilityBars::termAt(QPointF at) const {
    const std::vector<Segment> all = segments();
    const auto it = std::ranges::find_if(all, [&](const Segment& s) { return s.box.contains(at); });
    return it == all.end() ? QString() : it->name;
}

bool FeasibilityBars::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        const auto* help = static_cast<QHelpEvent*>(event);
        const QString tip = termAt(help->pos());
        if (tip.isEmpty()) {
            QToolTip::hideText();
            event->ignore();
        } else {
            QToolTip::showText(help->globalPos(), tip, this);
        }
        return true;
    }
    return QWidget::event(event);
}

void FeasibilityBars::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    const QFontMetrics fm = fontMetrics();
    if (!hasEstimate_) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, "no cell: the matrix has not been planned yet");
        return;
    }
    const auto [left, w] = barGeometry(*this);
    const QString verdict = estimate_.feasible ? "feasible" : "infeasible: " + estimate_.reason;
    p.setPen(estimate_.feasible ? palette().color(QPalette::Text) : QColor(170, 20, 20));
    p.drawText(QRect(4, 2, width() - 8, kCaption), Qt::AlignLeft | Qt::AlignVCenter,
               fm.elidedText(cellId_ + ": " + verdict, Qt::ElideMiddle, width() - 8));
    int y = kCaption + 6;
    for (const feasibility::Demand* d : {&estimate_.host, &estimate_.device}) {
        if (!d->used) {
            continue;
        }
        const double scale = scaleOf(*d);
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QRect(4, y, left - 8, kBarHeight), Qt::AlignLeft | Qt::AlignVCenter,
                   feasibility::toString(d->pool));
        double x = left;
        int colour = 0;
        for (const auto& term : d->terms) {
            const double tw = w * term.bytes / scale;
            p.fillRect(QRectF(x, y, tw, kBarHeight), kTermColours[colour++ % kTermColours.size()]);
            if (tw > 60) {
                p.setPen(Qt::white);
                p.drawText(QRectF(x + 3, y, tw - 6, kBarHeight), Qt::AlignLeft | Qt::AlignVCenter,
                           fm.elidedText(term.name, Qt::ElideRight, int(tw - 6)));
            }
            x += tw;
        }
        const bool over = d->total() > d->budgetBytes;
        // The budget: a vertical line, red when the demand passes it.
        const double bx = left + w * d->budgetBytes / scale;
        p.setPen(QPen(over ? QColor(200, 30, 30) : palette().color(QPalette::Text), 2));
        p.drawLine(QPointF(bx, y - 3), QPointF(bx, y + kBarHeight + 3));
        const bool binding = estimate_.binding == d->pool;
        if (binding) {
            // Past its budget: a solid red frame. Merely the closest to its limit: grey dashes.
            p.setPen(over ? QPen(QColor(200, 30, 30), 2)
                          : QPen(QColor(120, 120, 120), 1.5, Qt::DashLine));
            p.setBrush(Qt::NoBrush);
            p.drawRect(QRectF(left - 2, y - 2, w + 4, kBarHeight + 4));
        }
        const QString note =
            binding ? (over ? "  (over budget)" : "  (binding: closest to its limit)") : QString();
        p.setPen(over ? QColor(170, 20, 20) : palette().color(QPalette::Text));
        p.drawText(QRect(left, y + kBarHeight + 3, w, kCaption), Qt::AlignLeft | Qt::AlignVCenter,
                   fm.elidedText(caption(*d) + note, Qt::ElideRight, w));
        y += kBarHeight + kCaption + 8;
    }
}

} // namespace commprof::widgets
