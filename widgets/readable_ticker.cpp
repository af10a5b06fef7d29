// SPDX-License-Identifier: GPL-3.0-or-later
#include "readable_ticker.h"

#include <QFontMetricsF>
#include <QRegularExpression>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

namespace commprof::widgets {
namespace {

constexpr int kMostLinearTicks = 6;
constexpr int kMostLogLabels = 9;

double axisLengthPx(const QCPAxis* axis) {
    const QCPAxisRect* rect = axis->axisRect();
    return axis->orientation() == Qt::Horizontal ? rect->width() : rect->height();
}

// The room one label wants along the axis: its height and a line's gap on a vertical axis,
// its width (the widest of these values) and two letters' gap on a horizontal one.
double labelPitchPx(const QCPAxis* axis, const QVector<double>& values) {
    const QFontMetricsF fm(axis->tickLabelFont());
    if (axis->orientation() == Qt::Vertical) {
        return 2 * fm.height();
    }
    double widest = 0;
    for (double v : values) {
        widest = std::max(widest, fm.horizontalAdvance(readableTickLabel(
                                      v, axis->parentPlot()->locale(), axis->numberPrecision())));
    }
    return widest + fm.horizontalAdvance(QStringLiteral("MM"));
}

// The least distance between neighbouring ticks, in pixels, on a log axis.
double leastLogGapPx(const QVector<double>& ticks, double pxPerDecade) {
    double least = std::numeric_limits<double>::infinity();
    for (qsizetype i = 1; i < ticks.size(); ++i) {
        least = std::min(least, std::log10(ticks[i] / ticks[i - 1]) * pxPerDecade);
    }
    return least;
}

QVector<double> logTicksOf(const std::vector<double>& mantissas, int everyDecades,
                           const QCPRange& range) {
    QVector<double> out;
    const int first = int(std::floor(std::log10(range.lower)));
    const int last = int(std::ceil(std::log10(range.upper)));
    for (int k = first; k <= last; ++k) {
        if (((k % everyDecades) + everyDecades) % everyDecades != 0) {
            continue;
        }
        for (double m : mantissas) {
            const double v = m * std::pow(10.0, k);
            if (v >= range.lower && v <= range.upper) {
                out << v;
            }
        }
    }
    return out;
}

// Where the x axis's first label (centred on its tick) starts, in pixels, as last laid out: a
// narrow panel puts a base-2 cap axis's "0.25" half out to the left of its axis rect.
double firstXLabelLeftPx(const QCPAxis* x) {
    const QVector<double> ticks = x->tickVector();
    const QVector<QString> labels = x->tickVectorLabels();
    const QFontMetricsF fm(x->tickLabelFont());
    double left = std::numeric_limits<double>::infinity();
    for (qsizetype i = 0; i < ticks.size() && i < labels.size(); ++i) {
        if (x->range().contains(ticks[i]) && !labels[i].isEmpty()) {
            left = std::min(left, x->coordToPixel(ticks[i]) - fm.horizontalAdvance(labels[i]) / 2);
        }
    }
    return left;
}

// Whether a left axis's label at `px`, `heightPx` tall, reaches past its axis rect into another
// text: above, past the rect's margin into the panel's name; below, into the x labels' band
// where the first x label overhangs the left end into the y labels' column.
bool reachesIntoACorner(const QCPAxis* axis, double px, double heightPx) {
    const QCPAxisRect* rect = axis->axisRect();
    if (px - heightPx / 2 < rect->outerRect().top()) {
        return true;
    }
    const QCPAxis* x = rect->axis(QCPAxis::atBottom);
    if (!x || !x->visible() || !x->tickLabels() ||
        px + heightPx / 2 <= rect->bottom() + x->tickLabelPadding() + x->tickLengthOut()) {
        return false;
    }
    return firstXLabelLeftPx(x) < rect->left() - axis->tickLabelPadding() - axis->tickLengthOut();
}

} // namespace

template <typename Base>
template <typename GapPx>
QVector<double> AxisTicker<Base>::readableLinearTicks(const QCPRange& range, double& step,
                                                      GapPx gapPx) {
    QVector<double> ticks;
    for (int count = kMostLinearTicks; count >= 1; --count) {
        this->setTickCount(count);
        step = QCPAxisTicker::getTickStep(range);
        ticks = QCPAxisTicker::createTickVector(step, range);
        if (gapPx(ticks, step) >= labelPitchPx(axis_, ticks)) {
            break;
        }
    }
    return ticks;
}

QString readableTickLabel(double value, const QLocale& locale, int precision) {
    const int digits = std::clamp(precision, 1, 15);
    const double magnitude = std::abs(value);
    if (magnitude < 1e-12) {
        return locale.toString(0); // a linear step's sum that missed zero by a rounding
    }
    if (magnitude >= 1e-4 && magnitude < 1e7) {
        const int whole = int(std::floor(std::log10(magnitude)));
        QString text = locale.toString(value, 'f', std::clamp(digits - 1 - whole, 0, 15));
        if (text.contains(locale.decimalPoint())) {
            while (text.endsWith(locale.zeroDigit())) {
                text.chop(1);
            }
            if (text.endsWith(locale.decimalPoint())) {
                text.chop(locale.decimalPoint().size());
            }
        }
        return text;
    }
    QString text = locale.toString(value, 'g', digits); // "2e+07": the sign and zeros say nothing
    static const QRegularExpression plusZeros("e\\+0*"), minusZeros("e-0*");
    text.replace(plusZeros, "e").replace(minusZeros, "e-");
    return text;
}

void dropTouchingLabels(const QCPAxis* axis, const QVector<double>& ticks,
                        QVector<QString>& labels) {
    if (axisLengthPx(axis) <= 0) {
        return; // not laid out yet: every tick at one pixel would leave one label
    }
    const QFontMetricsF fm(axis->tickLabelFont());
    const bool vertical = axis->orientation() == Qt::Vertical;
    const auto extent = [&](const QString& text) {
        return vertical ? fm.height() : fm.horizontalAdvance(text) + fm.horizontalAdvance(' ');
    };
    const qsizetype count = std::min(ticks.size(), labels.size());
    const auto drawn = [&](qsizetype i) {
        return !labels[i].isEmpty() && axis->range().contains(ticks[i]);
    };
    qsizetype kept = -1;
    qsizetype shown = 0; // labels kept
    for (qsizetype i = 0; i < count; ++i) {
        if (!drawn(i)) {
            continue;
        }
        // Centred on their ticks: they clear when the ticks are half of each one's extent apart.
        if (kept >= 0 && std::abs(axis->coordToPixel(ticks[i]) - axis->coordToPixel(ticks[kept])) <
                             (extent(labels[i]) + extent(labels[kept])) / 2) {
            labels[i].clear();
        } else {
            kept = i;
            ++shown;
        }
    }
    if (!vertical || axis->axisType() != QCPAxis::atLeft) {
        return;
    }
    // A label in a corner gives way, while two others stay to read the axis's scale by.
    for (qsizetype i = 0; i < count && shown > 2; ++i) {
        if (drawn(i) && reachesIntoACorner(axis, axis->coordToPixel(ticks[i]), fm.height())) {
            labels[i].clear();
            --shown;
        }
    }
}

QVector<double> ReadableLinearTicker::createTickVector(double tickStep, const QCPRange& range) {
    const double lengthPx = axisLengthPx(axis_);
    double step = tickStep;
    QVector<double> ticks;
    if (lengthPx <= 0 || range.size() <= 0) {
        ticks = QCPAxisTicker::createTickVector(tickStep, range);
    } else {
        ticks = readableLinearTicks(range, step, [&](const QVector<double>&, double s) {
            return s / range.size() * lengthPx;
        });
    }
    subTicks_ = QCPAxisTicker::getSubTickCount(step);
    return ticks;
}

QVector<double> ReadableLogTicker::createTickVector(double tickStep, const QCPRange& range) {
    subTicks_ = 0;
    if (range.lower <= 0 || range.upper <= range.lower) {
        return QCPAxisTickerLog::createTickVector(tickStep, range);
    }
    const double lengthPx = axisLengthPx(axis_);
    const double pxPerDecade = lengthPx / std::log10(range.upper / range.lower);
    if (lengthPx <= 0) {
        return logTicksOf({1}, 1, range); // not laid out yet
    }
    static const std::array<std::vector<double>, 4> kMantissas{
        std::vector<double>{1, 2, 3, 5}, {1, 2, 5}, {1, 3}, {1}};
    for (const std::vector<double>& mantissas : kMantissas) {
        const QVector<double> ticks = logTicksOf(mantissas, 1, range);
        if (ticks.size() >= 2 && ticks.size() <= kMostLogLabels &&
            leastLogGapPx(ticks, pxPerDecade) >= labelPitchPx(axis_, ticks)) {
            subTicks_ = mantissas.size() == 1 ? 8 : 0;
            return ticks;
        }
    }
    if (logTicksOf({1, 2, 3, 5}, 1, range).size() < 2) {
        // Zoomed in under a decade: linear steps, spaced by where they fall on the log axis.
        double step = tickStep;
        return readableLinearTicks(range, step, [&](const QVector<double>& ticks, double) {
            return leastLogGapPx(ticks, pxPerDecade);
        });
    }
    for (int every = 2;; ++every) {
        const QVector<double> ticks = logTicksOf({1}, every, range);
        if (ticks.size() <= 2 || every * pxPerDecade >= labelPitchPx(axis_, ticks)) {
            return ticks;
        }
    }
}

} // namespace commprof::widgets
