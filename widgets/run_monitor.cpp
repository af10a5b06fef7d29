#include "run_monitor.h"

#include "flagged_row_delegate.h"
#include "jobs/release.h"
#include "layout_helpers.h"
#include "models/run_state_model.h"
#include "plot_style.h"

#include <qcustomplot.h>

#include <algorithm>

#include <QDir>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollBar>
#include <QSplitter>
#include <QTableView>
#include <QThread>
#include <QTimer>
#include <QVBoxLayout>

namespace commprof::widgets {
namespace {

QString duration(double seconds) {
    if (seconds < 90) {
        return QString("%1 s").arg(std::max(1.0, std::round(seconds)));
    }
    if (seconds < 5400) {
        return QString("%1 min").arg(std::round(seconds / 60.0));
    }
    return QString("%1 h").arg(seconds / 3600.0, 0, 'f', 1);
}

} // namespace

RunMonitor::RunMonitor(QWidget* parent) : QWidget(parent) {
    model_ = new models::RunStateModel(this);
    table_ = new QTableView(this);
    table_->setModel(model_);
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setTextElideMode(Qt::ElideMiddle);
    table_->setItemDelegate(new FlaggedRowDelegate(models::RunStateModel::TroubleRole, table_));
    QHeaderView* header = table_->horizontalHeader();
    header->setResizeContentsPrecision(200);
    for (int c : {models::RunStateModel::Cell, models::RunStateModel::State,
                  models::RunStateModel::Elapsed, models::RunStateModel::Ranks}) {
        header->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    }
    header->setStretchLastSection(true);

    output_ = new QLabel(this);
    output_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    output_->setWordWrap(true);
    changeOutput_ = new QPushButton("Change...", this);
    connect(changeOutput_, &QPushButton::clicked, this, &RunMonitor::outputChangeRequested);
    startButton_ = new QPushButton("Start", this);
    pauseButton_ = new QPushButton("Pause after this cell", this);
    stopButton_ = new QPushButton("Stop", this);
    connect(startButton_, &QPushButton::clicked, this, &RunMonitor::start);
    connect(pauseButton_, &QPushButton::clicked, this, &RunMonitor::pauseAfterCurrentCell);
    connect(stopButton_, &QPushButton::clicked, this, &RunMonitor::stop);
    pauseButton_->setEnabled(false);
    stopButton_->setEnabled(false);
    overall_ = new QProgressBar(this);
    overall_->setFormat("%v of %m cells");
    overall_->setRange(0, 1);
    overall_->setValue(0);
    eta_ = new QLabel(this);

    plot_ = new QCustomPlot(this);
    plot_->setMinimumHeight(120);
    startCellPlot({});
    log_ = new QPlainTextEdit(this);
    log_->setReadOnly(true);
    log_->setMaximumBlockCount(500); // a tail, not the whole log
    log_->setLineWrapMode(QPlainTextEdit::NoWrap);
    auto* bars = new QWidget(this);
    rankBars_ = new QVBoxLayout(bars);
    rankBars_->setContentsMargins(0, 0, 0, 0);
    rankBars_->setSpacing(2);

    connect(model_, &models::RunStateModel::bucketTimed, this,
            [this](const QString& id, int rank, int iteration, double ms, qint64) {
                onBucket(id, rank, iteration, ms);
            });
    connect(model_, &models::RunStateModel::currentCellChanged, this, [this](const QString& id) {
        startCellPlot(id);
        const int row = model_->rowOf(id);
        if (row >= 0) {
            table_->scrollTo(model_->index(row, 0));
        }
    });
    connect(model_, &QAbstractItemModel::dataChanged, this, &RunMonitor::updateRankBars);
    connect(model_, &QAbstractItemModel::dataChanged, this, &RunMonitor::updateProgress);
    auto* clock = new QTimer(this);
    connect(clock, &QTimer::timeout, model_, &models::RunStateModel::tick);
    clock->start(500);

    auto* where = new QHBoxLayout;
    where->addWidget(output_, 1);
    where->addWidget(changeOutput_);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(startButton_);
    buttons->addWidget(pauseButton_);
    buttons->addWidget(stopButton_);
    buttons->addWidget(overall_, 1);
    buttons->addWidget(eta_);
    QSplitter* split =
        makeSplitter(Qt::Vertical, {{table_, 3}, {bars, 0}, {plot_, 3}, {log_, 2}}, this);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(where);
    layout->addLayout(buttons);
    layout->addWidget(split, 1);
    setOutput({}, {});
}

RunMonitor::~RunMonitor() {
    if (runnerThread_) {
        // Deleting the runner in its thread ends its ranks (the pool's destructor does).
        runnerThread_->quit();
        runnerThread_->wait();
    }
}

namespace {

bool sameCells(const feasibility::Plan& a, const feasibility::Plan& b) {
    return std::equal(a.cells.begin(), a.cells.end(), b.cells.begin(), b.cells.end(),
                      [](const auto& x, const auto& y) { return x.cell.id == y.cell.id; });
}

} // namespace

void RunMonitor::setPlan(std::shared_ptr<const feasibility::Plan> plan) {
    jobs::releaseInBackground(std::exchange(plan_, std::move(plan)));
    // Slurm's view of each cell's job; the local launcher has none.
    table_->setColumnHidden(models::RunStateModel::Scheduler,
                            !plan_ || plan_->matrix.launcher.kind != matrix::LauncherKind::Slurm);
    if (finishedPlan_ && plan_ && sameCells(*finishedPlan_, *plan_)) {
        planShown_ = true; // the finished run's states stay on screen
        return;
    }
    jobs::releaseInBackground(std::exchange(finishedPlan_, nullptr));
    planShown_ = false;
    // A 100k-cell plan is listed only when someone looks, and never under a running run.
    if (!runner_ && isVisible()) {
        model_->setPlan(plan_);
        planShown_ = true;
        updateProgress();
    }
}

void RunMonitor::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (!runner_ && !planShown_ && plan_) {
        model_->setPlan(plan_);
        planShown_ = true;
        updateProgress();
    }
}

void RunMonitor::setOutput(const QString& outDir, const QString& rankProgram) {
    outDir_ = outDir.isEmpty() ? QString() : QDir(outDir).absolutePath();
    rankProgram_ = rankProgram;
    output_->setText(outDir_.isEmpty() ? QString("Output: not chosen")
                                       : QString("Output: %1").arg(outDir_));
    output_->setToolTip("Results are written here; the workbench opens them when the run ends.");
}

QString RunMonitor::logText() const {
    return log_->toPlainText();
}

int RunMonitor::plottedPoints() const {
    int n = 0;
    for (int i = 0; i < plot_->graphCount(); ++i) {
        n += plot_->graph(i)->dataCount();
    }
    return n;
}

QString RunMonitor::etaText() const {
    return eta_->text();
}

void RunMonitor::appendLog(const QString& line) {
    QScrollBar* bar = log_->verticalScrollBar();
    const bool following = bar->value() >= bar->maximum() - 2;
    log_->appendPlainText(line);
    if (following) {
        bar->setValue(bar->maximum()); // follow, unless the user scrolled up to read
    }
}

void RunMonitor::startCellPlot(const QString& cellId) {
    plotCell_ = cellId;
    plotKeys_ = {};
    plotValues_ = {};
    resetFigure(*plot_,
                cellId.isEmpty() ? QString("Bucket all-reduce times")
                                 : QString("Bucket all-reduce times: %1").arg(cellId),
                "iteration", "all-reduce (ms)", FigureStyle{font().pointSizeF()});
    countTicks(plot_->xAxis);
    plot_->xAxis->setRange(0, 1);
    plot_->yAxis->setRange(0, 1);
    plot_->legend->setVisible(false);
    // Until the first bucket is recorded (after warmup) the plot says what it waits for.
    auto* waiting = new QCPItemText(plot_);
    waiting->setObjectName("waiting");
    waiting->position->setType(QCPItemPosition::ptAxisRectRatio);
    waiting->position->setCoords(0.5, 0.5);
    waiting->setColor(palette().color(QPalette::PlaceholderText));
    waiting->setText(cellId.isEmpty() ? QString("no cell running")
                                      : QString("waiting for the first recorded bucket "
                                                "(after warmup)"));
    // One graph per rank, in rank order, so the legend reads rank 0, 1, ... whichever rank
    // reports first.
    const auto* cell = plan_ && !cellId.isEmpty() ? model_->cell(cellId) : nullptr;
    const int row = cell ? model_->rowOf(cellId) : -1;
    const int ranks = row >= 0 && row < int(plan_->cells.size())
                          ? plan_->cells[std::size_t(row)].cell.worldSize
                          : 0;
    for (int r = 0; r < ranks; ++r) {
        rankGraph(r);
    }
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

QCPGraph* RunMonitor::rankGraph(int rank) {
    const QString name = QString("rank %1").arg(rank);
    for (int i = 0; i < plot_->graphCount(); ++i) {
        if (plot_->graph(i)->name() == name) {
            return plot_->graph(i);
        }
    }
    QCPGraph* g = plot_->addGraph();
    g->setName(name);
    g->setLineStyle(QCPGraph::lsNone);
    g->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssDisc, rankColour(rank), rankColour(rank), 5));
    return g;
}

void RunMonitor::onBucket(const QString& cellId, int rank, int iteration, double ms) {
    if (cellId != plotCell_) {
        startCellPlot(cellId); // only the running cell's points, never the previous cell's
    }
    const int before = plot_->graphCount();
    for (int i = plot_->itemCount() - 1; i >= 0; --i) {
        if (plot_->item(i)->objectName() == "waiting") {
            plot_->removeItem(i);
        }
    }
    QCPGraph* g = rankGraph(rank);
    const bool firstPoint = g->dataCount() == 0;
    g->addData(iteration, ms);
    plotKeys_.widen(iteration);
    plotValues_.widen(ms);
    // Whole iterations with room on both sides: no point sits on the frame.
    plot_->xAxis->setRange(plotKeys_.lo - 0.6, plotKeys_.hi + 0.6);
    fitAxis(plot_->yAxis, QVector<double>{plotValues_.lo, plotValues_.hi}, true);
    if (firstPoint || plot_->graphCount() != before) {
        placeLegend(*plot_); // a new rank on the legend
    }
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void RunMonitor::start() {
    if (runner_ || !plan_ || plan_->cells.empty() || outDir_.isEmpty()) {
        return;
    }
    jobs::releaseInBackground(std::exchange(finishedPlan_, nullptr));
    model_->setPlan(plan_);
    planShown_ = true;
    startCellPlot({});
    runner::RunOptions options;
    options.outDir = outDir_;
    options.rankProgram = rankProgram_;
    options.resume = true;
    runnerThread_ = new QThread(this);
    runnerThread_->setObjectName("runner");
    runner_ = new runner::MatrixRunner(*plan_, options);
    runner_->moveToThread(runnerThread_);
    connect(runnerThread_, &QThread::finished, runner_, &QObject::deleteLater);
    connect(runner_, &runner::MatrixRunner::cellStateChanged, model_,
            &models::RunStateModel::onCellState);
    connect(runner_, &runner::MatrixRunner::rankProgress, model_,
            &models::RunStateModel::onRankProgress);
    connect(runner_, &runner::MatrixRunner::launcherState, model_,
            &models::RunStateModel::onLauncherState);
    connect(runner_, &runner::MatrixRunner::cellStateChanged, this,
            [this](const QString& id, runner::CellState s, const QString& d) {
                appendLog(QString("%1: %2 %3").arg(id, runner::toString(s), d));
            });
    connect(runner_, &runner::MatrixRunner::logLine, this,
            [this](const QString& id, const QString& line) {
                appendLog(id.isEmpty() ? line : id + ": " + line);
            });
    connect(runner_, &runner::MatrixRunner::finished, this, &RunMonitor::onRunFinished);
    startButton_->setEnabled(false);
    changeOutput_->setEnabled(false);
    pauseButton_->setEnabled(true);
    stopButton_->setEnabled(true);
    appendLog(QString("run started: %1 cells into %2").arg(plan_->cells.size()).arg(outDir_));
    runnerThread_->start();
    QMetaObject::invokeMethod(runner_, &runner::MatrixRunner::start, Qt::QueuedConnection);
    updateProgress();
}

void RunMonitor::onRunFinished(const runner::RunSummary& s) {
    const int stopped = model_->stoppedCount();
    appendLog(QString("run %1: %2 complete, %3 failed, %4 stopped, %5 skipped_infeasible")
                  .arg(s.stopped ? "ended early" : "finished")
                  .arg(s.complete)
                  .arg(s.failed - stopped)
                  .arg(stopped)
                  .arg(s.skippedInfeasible));
    runnerThread_->quit();
    runnerThread_->wait();
    runnerThread_->deleteLater();
    runnerThread_ = nullptr;
    runner_ = nullptr; // deleted with its thread's end
    startButton_->setEnabled(true);
    changeOutput_->setEnabled(true);
    pauseButton_->setEnabled(false);
    stopButton_->setEnabled(false);
    finishedPlan_ = plan_;
    updateProgress();
    emit finished(s, outDir_);
}

void RunMonitor::pauseAfterCurrentCell() {
    if (runner_) {
        QMetaObject::invokeMethod(
            runner_, [r = runner_] { r->pauseAfterCurrentCell(); }, Qt::QueuedConnection);
        appendLog("pausing after the current cell");
    }
}

void RunMonitor::stop() {
    if (runner_) {
        model_->markStopRequested();
        appendLog(plan_ && plan_->matrix.launcher.kind == matrix::LauncherKind::Slurm
                      ? "stopping: cancelling the running cell's Slurm job (scancel)"
                      : "stopping: ending every rank of the running cell");
        QMetaObject::invokeMethod(runner_, &runner::MatrixRunner::stop, Qt::QueuedConnection);
    }
}

void RunMonitor::updateProgress() {
    const int total = model_->cellCount();
    overall_->setRange(0, std::max(1, total));
    overall_->setValue(model_->cellsFinished());
    const auto eta = model_->etaSeconds();
    if (!runner_) {
        eta_->setText(total == 0 ? QString() : QString("%1 cells planned").arg(total));
    } else {
        eta_->setText(eta ? "about " + duration(*eta) + " left" : QString("estimating..."));
    }
}

void RunMonitor::updateRankBars() {
    const auto* cell = model_->cell(model_->currentCell());
    if (!cell) {
        return;
    }
    while (bars_.size() < cell->ranks.size()) {
        auto* bar = new QProgressBar(this);
        bar->setMaximumHeight(fontMetrics().height() + 6);
        rankBars_->addWidget(bar);
        bars_ << bar;
    }
    int i = 0;
    for (auto it = cell->ranks.begin(); it != cell->ranks.end(); ++it, ++i) {
        bars_[i]->setRange(0, std::max(1, it->of));
        bars_[i]->setValue(it->iteration);
        bars_[i]->setFormat(QString("rank %1: iteration %v of %m, last step %2 ms")
                                .arg(it.key())
                                .arg(it->lastStepMs, 0, 'f', 1));
        bars_[i]->setVisible(true);
    }
    for (; i < bars_.size(); ++i) {
        bars_[i]->setVisible(false);
    }
}

} // namespace commprof::widgets
