// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Per-pool feasibility bars for one cell: each pool's demand as stacked, named terms against
// its budget line. The binding pool is framed: solid red when it is past its budget, grey
// dashes when it is only the closest to its limit. A CPU cell shows the host pool only.

#include "feasibility/footprint.h"

#include <QWidget>

#include <vector>

namespace commprof::widgets {

class FeasibilityBars : public QWidget {
    Q_OBJECT
public:
    explicit FeasibilityBars(QWidget* parent = nullptr);
    void setEstimate(const QString& cellId, const feasibility::FootprintEstimate& estimate);
    void clear();
    const feasibility::FootprintEstimate& estimate() const { return estimate_; }
    QString cellId() const { return cellId_; }
    // The line under a pool's bar: demand against budget, or why there is no budget.
    QString caption(const feasibility::Demand& demand) const;
    QSize sizeHint() const override;
    // Each term's box as drawn, with its name and size: a box too narrow for its label is
    // still named by its tooltip.
    struct Segment {
        QRectF box;
        QString name;
        double bytes = 0;
    };
    std::vector<Segment> segments() const;
    // "name: 0.12 GiB (pool)" for the term under a point; empty off the bars.
    QString termAt(QPointF at) const;

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;

private:
    QString cellId_;
    feasibility::FootprintEstimate estimate_;
    bool hasEstimate_ = false;
};

} // namespace commprof::widgets
