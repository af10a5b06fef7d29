#pragma once
// The run monitor: start, pause after the current cell, and stop a run of the rank pool; per
// cell its state and elapsed time against the deadline; per rank of the running cell an
// iteration progress bar and its last step time; bucket all-reduce times plotted as they
// stream in; the launcher log's tail.

#include "feasibility/plan.h"
#include "runner/matrix_runner.h"

#include <QWidget>

class QCustomPlot;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTableView;
class QVBoxLayout;

namespace commprof::models {
class RunStateModel;
}

namespace commprof::widgets {

class RunMonitor : public QWidget {
    Q_OBJECT
public:
    explicit RunMonitor(QWidget* parent = nullptr);
    void setPlan(const feasibility::Plan& plan);
    void setOutput(const QString& outDir, const QString& rankProgram);
    models::RunStateModel* model() const { return model_; }
    QCustomPlot* bucketPlot() const { return plot_; }
    bool running() const { return runner_ != nullptr; }
    QString logText() const;

public slots:
    void start();
    void pauseAfterCurrentCell();
    void stop();

signals:
    void finished(const commprof::runner::RunSummary& summary);

private:
    void updateRankBars();
    void appendLog(const QString& line);
    feasibility::Plan plan_;
    QString outDir_;
    QString rankProgram_;
    runner::MatrixRunner* runner_ = nullptr;
    models::RunStateModel* model_;
    QTableView* table_;
    QVBoxLayout* rankBars_;
    QList<QProgressBar*> bars_;
    QCustomPlot* plot_;
    QPlainTextEdit* log_;
    QPushButton* startButton_;
    QPushButton* pauseButton_;
    QPushButton* stopButton_;
};

} // namespace commprof::widgets
