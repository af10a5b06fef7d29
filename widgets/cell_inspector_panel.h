// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Beside the timeline: the selected cell's figures (step, compute, exposed communication, the
// two instruments of communication and how they agree) and its bucket all-reduce times as the
// comm hook recorded them; above them what the cell trained (its model's description) and how
// DDP bucketed it.

#include "jobs/job_tracker.h"
#include "report/report_data.h"

#include <QWidget>

class QCustomPlot;
class QLabel;
class QTableView;

namespace commprof::models {
class CellFiguresModel;
}
namespace commprof::results {
struct ModelLayout;
}

namespace commprof::widgets {

class CellInspectorPanel : public QWidget {
    Q_OBJECT
public:
    explicit CellInspectorPanel(QWidget* parent = nullptr);
    void showCell(const report::ReportData& data, const QString& cellId);
    models::CellFiguresModel* figures() const { return figures_; }
    QCustomPlot* plot() const { return plot_; }

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void showModel(const store::CellRow* cell);
    void showLayout(const results::ModelLayout& m);
    static constexpr int kNotesFromWidth = 420; // narrower: the meanings go to tooltips
    QLabel* headline_;
    QLabel* model_;
    jobs::JobTracker* modelReads_ = new jobs::JobTracker(this);
    models::CellFiguresModel* figures_;
    QTableView* table_;
    QCustomPlot* plot_;
};

} // namespace commprof::widgets
