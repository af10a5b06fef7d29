#include "run_monitor.h"

#include "models/run_state_model.h"

#include <qcustomplot.h>

#include <QHBoxLayout>
#include <QHeaderView>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

namespace commprof::widgets {

RunMonitor::RunMonitor(QWidget* parent) : QWidget(parent) {
    model_ = new models::RunStateModel(this);
    table_ = new QTableView(this);
    table_->setModel(model_);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setStretchLastSection(true);
    startButton_ = new QPushButton("Start", this);
    pauseButton_ = new QPushButton("Pause after this cell", this);
    stopButton_ = new QPushButton("Stop", this);
    connect(startButton_, &QPushButton::clicked, this, &RunMonitor::start);
    connect(pauseButton_, &QPushButton::clicked, this, &RunMonitor::pauseAfterCurrentCell);
    connect(stopButton_, &QPushButton::clicked, this, &RunMonitor::stop);
    pauseButton_->setEnabled(false);
    stopButton_->setEnabled(false);

    plot_ = new QCustomPlot(this);
    plot_->xAxis->setLabel("iteration");
    plot_->yAxis->setLabel("bucket all-reduce (ms)");
    plot_->setMinimumHeight(160);
    log_ = new QPlainTextEdit(this);
    log_->setReadOnly(true);
    log_->setMaximumBlockCount(500); // a tail, not the whole log
    auto* bars = new QWidget(this);
    rankBars_ = new QVBoxLayout(bars);

    connect(model_, &models::RunStateModel::bucketTimed, this,
            [this](const QString&, int rank, int iteration, double ms, qint64) {
                while (plot_->graphCount() <= rank) {
                    QCPGraph* g = plot_->addGraph();
                    g->setLineStyle(QCPGraph::lsNone);
                    g->setScatterStyle(QCPScatterStyle(
                        QCPScatterStyle::ssDisc,
                        QColor::fromHsv((plot_->graphCount() * 70) % 360, 200, 200), 4));
                    g->setName(QString("rank %1").arg(plot_->graphCount() - 1));
                }
                plot_->graph(rank)->addData(iteration, ms);
                plot_->rescaleAxes();
                plot_->replot(QCustomPlot::rpQueuedReplot);
            });
    connect(model_, &QAbstractItemModel::dataChanged, this, &RunMonitor::updateRankBars);
    auto* clock = new QTimer(this);
    connect(clock, &QTimer::timeout, model_, &models::RunStateModel::tick);
    clock->start(500);

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(startButton_);
    buttons->addWidget(pauseButton_);
    buttons->addWidget(stopButton_);
    buttons->addStretch(1);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(table_);
    split->addWidget(bars);
    split->addWidget(plot_);
    split->addWidget(log_);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(buttons);
    layout->addWidget(split, 1);
}

void RunMonitor::setPlan(const feasibility::Plan& plan) {
    plan_ = plan;
    if (!runner_) {
        model_->setPlan(plan);
    }
}

void RunMonitor::setOutput(const QString& outDir, const QString& rankProgram) {
    outDir_ = outDir;
    rankProgram_ = rankProgram;
}

QString RunMonitor::logText() const {
    return log_->toPlainText();
}

void RunMonitor::appendLog(const QString& line) {
    log_->appendPlainText(line);
}

void RunMonitor::start() {
    if (runner_ || plan_.cells.empty() || outDir_.isEmpty()) {
        return;
    }
    model_->setPlan(plan_);
    plot_->clearGraphs();
    runner::RunOptions options;
    options.outDir = outDir_;
    options.rankProgram = rankProgram_;
    options.resume = true;
    runner_ = new runner::MatrixRunner(plan_, options, this);
    connect(runner_, &runner::MatrixRunner::cellStateChanged, model_,
            &models::RunStateModel::onCellState);
    connect(runner_, &runner::MatrixRunner::rankProgress, model_,
            &models::RunStateModel::onRankProgress);
    connect(runner_, &runner::MatrixRunner::cellStateChanged, this,
            [this](const QString& id, runner::CellState s, const QString& d) {
                appendLog(QString("%1: %2 %3").arg(id, runner::toString(s), d));
            });
    connect(runner_, &runner::MatrixRunner::logLine, this,
            [this](const QString& id, const QString& line) {
                appendLog(id.isEmpty() ? line : id + ": " + line);
            });
    connect(runner_, &runner::MatrixRunner::finished, this, [this](const runner::RunSummary& s) {
        appendLog(QString("run finished: %1 complete, %2 failed, %3 skipped_infeasible%4")
                      .arg(s.complete)
                      .arg(s.failed)
                      .arg(s.skippedInfeasible)
                      .arg(s.stopped ? ", stopped" : ""));
        runner_->deleteLater();
        runner_ = nullptr;
        startButton_->setEnabled(true);
        pauseButton_->setEnabled(false);
        stopButton_->setEnabled(false);
        emit finished(s);
    });
    startButton_->setEnabled(false);
    pauseButton_->setEnabled(true);
    stopButton_->setEnabled(true);
    runner_->start();
}

void RunMonitor::pauseAfterCurrentCell() {
    if (runner_) {
        runner_->pauseAfterCurrentCell();
        appendLog("pausing after the current cell");
    }
}

void RunMonitor::stop() {
    if (runner_) {
        appendLog("stopping: ending every rank of the running cell");
        runner_->stop();
    }
}

void RunMonitor::updateRankBars() {
    const auto* cell = model_->cell(model_->currentCell());
    if (!cell) {
        return;
    }
    while (bars_.size() < cell->ranks.size()) {
        auto* bar = new QProgressBar(this);
        rankBars_->addWidget(bar);
        bars_ << bar;
    }
    int i = 0;
    for (auto it = cell->ranks.begin(); it != cell->ranks.end(); ++it, ++i) {
        bars_[i]->setRange(0, std::max(1, it->of));
        bars_[i]->setValue(it->iteration);
        bars_[i]->setFormat(QString("%1 rank %2: %v/%m, last step %3 ms")
                                .arg(cell->id)
                                .arg(it.key())
                                .arg(it->lastStepMs, 0, 'f', 1));
        bars_[i]->setVisible(true);
    }
    for (; i < bars_.size(); ++i) {
        bars_[i]->setVisible(false);
    }
}

} // namespace commprof::widgets
