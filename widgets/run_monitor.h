// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The run monitor: where the run writes (shown before it starts), start, pause after the
// current cell, and stop; the run's overall progress and time left; per cell its state and
// elapsed time against the deadline; per rank of the running cell an iteration progress bar
// and its last step time; the running cell's bucket all-reduce times plotted as they stream
// in, one colour per rank; the launcher log's tail, following new lines. A run the runner
// refuses, or one that lost its folder, is said in the monitor's message bar. After a pause the
// Start button resumes the run; after the run the rank bars keep the last cell's figures under
// its name.
//
// It displays a RunController, which owns the run, and forwards the buttons to it.

#include "feasibility/plan.h"
#include "runner/matrix_runner.h"

#include <QWidget>

#include <algorithm>
#include <limits>
#include <memory>

class QCustomPlot;
class QCPGraph;
class QCPItemText;
class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTableView;
class QVBoxLayout;

namespace commprof::models {
class RunController;
class RunStateModel;
} // namespace commprof::models

namespace commprof::widgets {

class MessageBar;

class RunMonitor : public QWidget {
    Q_OBJECT
public:
    // A monitor of `run`, which it does not own; nothing of it is used once `run` is gone.
    // Null: a run of its own.
    explicit RunMonitor(models::RunController* run = nullptr, QWidget* parent = nullptr);
    void setPlan(std::shared_ptr<const feasibility::Plan> plan);
    models::RunController* controller() const { return run_; }
    models::RunStateModel* model() const { return model_; }
    QCustomPlot* bucketPlot() const { return plot_; }
    QProgressBar* overallProgress() const { return overall_; }
    int plottedPoints() const; // bucket times of the running cell on the live plot
    QString plotNote() const;  // what the live plot says in place of points; empty with points
    QString logText() const;
    QPlainTextEdit* log() const { return log_; }
    QTableView* table() const { return table_; }
    MessageBar* messages() const { return messages_; }
    QPushButton* startButton() const { return startButton_; }
    // The rank bars on screen: what they say, and the line above them.
    QStringList rankBarTexts() const;
    QString rankBarsTitle() const;

signals:
    // The run ended (complete, failed, paused or stopped); its results are in outDir.
    void finished(const commprof::runner::RunSummary& summary, const QString& outDir);
    void outputChangeRequested();

protected:
    void showEvent(QShowEvent* event) override;

private:
    void updateRankBars();
    void updateProgress();
    void onBucket(const QString& cellId, int rank, int iteration, double ms);
    void startCellPlot(const QString& cellId);
    QCPGraph* rankGraph(int rank);
    QCPItemText* waitingNote() const;
    void onStarted();
    void onRunFinished(const runner::RunSummary& summary, const QString& outDir);
    void showOutput(const QString& outDir);
    models::RunController* run_;
    models::RunStateModel* model_;
    MessageBar* messages_;
    QLabel* output_;
    QPushButton* changeOutput_;
    QProgressBar* overall_;
    QLabel* eta_;
    QTableView* table_;
    QVBoxLayout* rankBars_;
    QLabel* barsTitle_;
    QList<QProgressBar*> bars_;
    QCustomPlot* plot_;
    QString plotCell_;
    // The running cell's points' extent, widened per point: the axes follow a streaming run
    // without rescanning every point on each bucket.
    struct Extent {
        double lo = std::numeric_limits<double>::infinity();
        double hi = -std::numeric_limits<double>::infinity();
        void widen(double v) { lo = std::min(lo, v), hi = std::max(hi, v); }
    };
    Extent plotKeys_, plotValues_;
    QPlainTextEdit* log_;
    QPushButton* startButton_;
    QPushButton* pauseButton_;
    QPushButton* stopButton_;
};

} // namespace commprof::widgets
