// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <qcustomplot.h>

namespace commprof::widgets {

// Tickers that choose their ticks by the room the axis has: neighbouring labels are always at
// least a label (and a gap) apart along the axis, however short the axis and whatever the range.
// They measure the axis rect as last laid out, so a replot after a resize settles them.

// A tick's label as a reader writes the number: plain digits from 0.0001 to under 10 million
// ("10000", where printf's %g wrote "1e+04" under a figure's 4 significant digits), with no more
// decimals than `precision` significant digits need; beyond, a short exponent ("2e7").
QString readableTickLabel(double value, const QLocale& locale, int precision);

// Blanks each label that would touch the last one kept, measured with the axis font on the axis
// as last laid out: the last guard of every numeric axis the figures draw, whatever chose its
// ticks (a base-2 log axis's "0.25" ran into its "1" where long y labels left a panel narrow).
// A left axis's label that reaches past its rect's top into a panel's name, or below it into
// an x label overhanging the corner, is blanked too, while two others stay.
void dropTouchingLabels(const QCPAxis* axis, const QVector<double>& ticks,
                        QVector<QString>& labels);

template <typename Base> class ClearLabels : public Base {
public:
    explicit ClearLabels(const QCPAxis* axis) : axis_(axis) {}

protected:
    QVector<QString> createLabelVector(const QVector<double>& ticks, const QLocale& locale,
                                       QChar formatChar, int precision) override {
        QVector<QString> labels = Base::createLabelVector(ticks, locale, formatChar, precision);
        dropTouchingLabels(axis_, ticks, labels);
        return labels;
    }
    const QCPAxis* axis_;
};

// What both share: the axis they measure, the readable choice among QCustomPlot's own linear
// ticks, the sub-ticks that choice leaves, and readable labels.
template <typename Base> class AxisTicker : public ClearLabels<Base> {
public:
    using ClearLabels<Base>::ClearLabels;

protected:
    // From the most ticks down, the first linear step (into `step`) whose labels clear each
    // other; `gapPx` gives the least distance between neighbouring ticks of a tick vector.
    template <typename GapPx>
    QVector<double> readableLinearTicks(const QCPRange& range, double& step, GapPx gapPx);
    int getSubTickCount(double /*tickStep*/) override { return subTicks_; }
    QString getTickLabel(double tick, const QLocale& locale, QChar /*formatChar*/,
                         int precision) override {
        return readableTickLabel(tick, locale, precision);
    }
    using ClearLabels<Base>::axis_;
    int subTicks_ = 0; // set with each tick vector
};

// Linear: the densest "nice" step (1, 2, 2.5, 5 x 10^k) whose labels clear each other.
class ReadableLinearTicker : public AxisTicker<QCPAxisTicker> {
public:
    using AxisTicker::AxisTicker;

protected:
    QVector<double> createTickVector(double tickStep, const QCPRange& range) override;
};

// Logarithmic (base 10): labels at 1, 2, 3, 5 x 10^k where the axis has room, thinning to 1, 2,
// 5, then 1, 3, then 1 per decade, then every n-th decade; linear steps when zoomed in under a
// decade. QCustomPlot's own log ticker falls back to linear steps on a range under 1.6 decades,
// and then its labels crowd at the top of the axis.
class ReadableLogTicker : public AxisTicker<QCPAxisTickerLog> {
public:
    using AxisTicker::AxisTicker;

protected:
    QVector<double> createTickVector(double tickStep, const QCPRange& range) override;
};

} // namespace commprof::widgets
