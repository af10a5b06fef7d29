#pragma once
// Per-pool feasibility bars for one cell: each pool's demand as stacked, named terms against
// its budget line; the binding pool is outlined. A CPU cell shows the host pool only.

#include "feasibility/footprint.h"

#include <QWidget>

namespace commprof::widgets {

class FeasibilityBars : public QWidget {
    Q_OBJECT
public:
    explicit FeasibilityBars(QWidget* parent = nullptr);
    void setEstimate(const QString& cellId, const feasibility::FootprintEstimate& estimate);
    const feasibility::FootprintEstimate& estimate() const { return estimate_; }
    QSize sizeHint() const override { return {520, 150}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    QString cellId_;
    feasibility::FootprintEstimate estimate_;
    bool hasEstimate_ = false;
};

} // namespace commprof::widgets
