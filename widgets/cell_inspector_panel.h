#pragma once
// Beside the timeline: one cell's bucket all-reduce times (the comm hook's instrument) and
// how they agree with the trace's communication per step.

#include "report/report_data.h"

#include <QWidget>

class QCustomPlot;
class QLabel;

namespace commprof::widgets {

class CellInspectorPanel : public QWidget {
    Q_OBJECT
public:
    explicit CellInspectorPanel(QWidget* parent = nullptr);
    void showCell(const report::ReportData& data, const QString& cellId);
    QString agreementText() const;
    QCustomPlot* plot() const { return plot_; }

private:
    QLabel* agreement_;
    QCustomPlot* plot_;
};

} // namespace commprof::widgets
