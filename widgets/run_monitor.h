#pragma once
// The run monitor: where the run writes (shown before it starts), start, pause after the
// current cell, and stop; the run's overall progress and time left; per cell its state and
// elapsed time against the deadline; per rank of the running cell an iteration progress bar
// and its last step time; the running cell's bucket all-reduce times plotted as they stream
// in, one colour per rank; the launcher log's tail, following new lines.
//
// The runner lives in a thread of its own: starting ranks, waiting for them and ending stale
// ones never blocks the GUI. Its signals arrive here queued.

#include "feasibility/plan.h"
#include "runner/matrix_runner.h"

#include <QWidget>

#include <algorithm>
#include <limits>
#include <memory>

class QCustomPlot;
class QCPGraph;
class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTableView;
class QThread;
class QVBoxLayout;

namespace commprof::models {
class RunStateModel;
}

namespace commprof::widgets {

class RunMonitor : public QWidget {
    Q_OBJECT
public:
    explicit RunMonitor(QWidget* parent = nullptr);
    ~RunMonitor() override;
    void setPlan(std::shared_ptr<const feasibility::Plan> plan);
    void setOutput(const QString& outDir, const QString& rankProgram);
    QString outputDir() const { return outDir_; }
    models::RunStateModel* model() const { return model_; }
    QCustomPlot* bucketPlot() const { return plot_; }
    QProgressBar* overallProgress() const { return overall_; }
    QString etaText() const;
    int plottedPoints() const; // bucket times of the running cell on the live plot
    bool running() const { return runner_ != nullptr; }
    QString logText() const;
    QPlainTextEdit* log() const { return log_; }
    QTableView* table() const { return table_; }

public slots:
    void start();
    void pauseAfterCurrentCell();
    void stop();

signals:
    // The run ended (complete, failed, paused or stopped); its results are in outDir.
    void finished(const commprof::runner::RunSummary& summary, const QString& outDir);
    void outputChangeRequested();

protected:
    void showEvent(QShowEvent* event) override;

private:
    void updateRankBars();
    void updateProgress();
    void appendLog(const QString& line);
    void onBucket(const QString& cellId, int rank, int iteration, double ms);
    void startCellPlot(const QString& cellId);
    QCPGraph* rankGraph(int rank);
    void onRunFinished(const runner::RunSummary& summary);
    std::shared_ptr<const feasibility::Plan> plan_;
    bool planShown_ = false;
    QString outDir_;
    QString rankProgram_;
    runner::MatrixRunner* runner_ = nullptr; // lives in runnerThread_
    QThread* runnerThread_ = nullptr;
    models::RunStateModel* model_;
    QLabel* output_;
    QPushButton* changeOutput_;
    QProgressBar* overall_;
    QLabel* eta_;
    QTableView* table_;
    QVBoxLayout* rankBars_;
    QList<QProgressBar*> bars_;
    QCustomPlot* plot_;
    QString plotCell_;
    // The plan of the run whose end the table shows: a new plan with the same cells (the
    // designer re-plans when the run's results open) keeps those states instead of resetting
    // them to pending.
    std::shared_ptr<const feasibility::Plan> finishedPlan_;
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
