// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <qcustomplot.h>

#include <functional>

namespace commprof::widgets {

// Tickers that choose their ticks by the room the axis has: neighbouring labels are always at
// least a label (and a gap) apart along the axis, however short the axis and whatever the range.
// They measure the axis rect as last laid out, so a replot after a resize settles them.

// Linear: the densest "nice" step (1, 2, 2.5, 5 x 10^k) whose labels clear each other.
class ReadableLinearTicker : public QCPAxisTicker {
public:
    explicit ReadableLinearTicker(const QCPAxis* axis) : axis_(axis) {}

protected:
    QVector<double> createTickVector(double tickStep, const QCPRange& range) override;
    int getSubTickCount(double tickStep) override;

private:
    std::function<QVector<double>(int, double&)> linearTicks(const QCPRange& range);
    const QCPAxis* axis_;
    double chosenStep_ = 0;
};

// Logarithmic (base 10): labels at 1, 1.5, 2, 3, ... x 10^k where the axis has room, thinning
// to 1, 2, 5, then 1 per decade, then every n-th decade. QCustomPlot's own log ticker falls
// back to linear steps on a range under 1.6 decades and then labels crowd at its top.
class ReadableLogTicker : public QCPAxisTickerLog {
public:
    explicit ReadableLogTicker(const QCPAxis* axis) : axis_(axis) {}

protected:
    QVector<double> createTickVector(double tickStep, const QCPRange& range) override;
    int getSubTickCount(double tickStep) override;

private:
    std::function<QVector<double>(int, double&)> linearTicks(const QCPRange& range);
    const QCPAxis* axis_;
    int subTicks_ = 0;
};

} // namespace commprof::widgets
