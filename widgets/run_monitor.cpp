// SPDX-License-Identifier: GPL-3.0-or-later
#include "run_monitor.h"

#include "analysis/number_text.h"
#include "flagged_row_delegate.h"
#include "layout_helpers.h"
#include "message_bar.h"
#include "models/run_controller.h"
#include "models/run_state_model.h"
#include "plot_style.h"

#include <qcustomplot.h>

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollBar>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <cmath>

namespace commprof::widgets {
namespace {

constexpr double kSweepMinBytes = 8; // a sweep's first size (nccl-tests' 8 B)
constexpr int kSweepBarSteps = 1000;

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

RunMonitor::RunMonitor(models::RunController* run, QWidget* parent)
    : QWidget(parent), run_(run ? run : new models::RunController(this)), model_(run_->model()) {
    table_ = new QTableView(this);
    table_->setModel(model_);
    makeRowTable(*table_);
    table_->setItemDelegate(new FlaggedRowDelegate(models::RunStateModel::TroubleRole, table_));
    QHeaderView* header = table_->horizontalHeader();
    header->setResizeContentsPrecision(200);
    for (int c : {models::RunStateModel::Cell, models::RunStateModel::State,
                  models::RunStateModel::Elapsed, models::RunStateModel::Ranks}) {
        header->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    }
    header->setStretchLastSection(true);

    messages_ = new MessageBar(this);
    output_ = new QLabel(this);
    output_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    output_->setWordWrap(true);
    changeOutput_ = new QPushButton("Change...", this);
    connect(changeOutput_, &QPushButton::clicked, this, &RunMonitor::outputChangeRequested);
    startButton_ = new QPushButton("Start", this);
    pauseButton_ = new QPushButton("Pause after this cell", this);
    stopButton_ = new QPushButton("Stop", this);
    connect(startButton_, &QPushButton::clicked, run_, &models::RunController::start);
    connect(pauseButton_, &QPushButton::clicked, run_,
            &models::RunController::pauseAfterCurrentCell);
    connect(stopButton_, &QPushButton::clicked, run_, &models::RunController::stop);
    pauseButton_->setEnabled(false);
    stopButton_->setEnabled(false);
    overall_ = new QProgressBar(this);
    overall_->setFormat("%v of %m cells");
    overall_->setRange(0, 1);
    overall_->setValue(0);
    eta_ = new QLabel(this);
    eta_->setObjectName("eta");

    plot_ = new QCustomPlot(this);
    plot_->setMinimumHeight(120);
    startCellPlot({});
    log_ = new QPlainTextEdit(this);
    log_->setReadOnly(true);
    log_->setMaximumBlockCount(500); // a tail, not the whole log
    log_->setLineWrapMode(QPlainTextEdit::NoWrap);
    auto* bars = new QWidget(this);
    rankBars_ = bareLayout<QVBoxLayout>(bars, 2);
    barsTitle_ = new QLabel(bars);
    barsTitle_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    barsTitle_->hide();
    rankBars_->addWidget(barsTitle_);

    connect(model_, &models::RunStateModel::bucketTimed, this, &RunMonitor::onBucket);
    connect(model_, &models::RunStateModel::currentCellChanged, this, [this](const QString& id) {
        startCellPlot(id);
        const int row = model_->rowOf(id);
        if (row >= 0) {
            table_->scrollTo(model_->index(row, 0));
        }
    });
    connect(model_, &QAbstractItemModel::dataChanged, this, &RunMonitor::updateRankBars);
    connect(model_, &QAbstractItemModel::dataChanged, this, &RunMonitor::updateProgress);
    connect(model_, &QAbstractItemModel::modelReset, this, &RunMonitor::updateRankBars);
    connect(model_, &QAbstractItemModel::modelReset, this, &RunMonitor::updateProgress);
    connect(run_, &models::RunController::started, this, &RunMonitor::onStarted);
    connect(run_, &models::RunController::finished, this, &RunMonitor::onRunFinished);
    connect(run_, &models::RunController::logLine, this, [this](const QString& line) {
        QScrollBar* bar = log_->verticalScrollBar();
        const bool following = bar->value() >= bar->maximum() - 2;
        log_->appendPlainText(line);
        if (following) {
            bar->setValue(bar->maximum()); // follow, unless the user scrolled up to read
        }
    });
    connect(run_, &models::RunController::outputChanged, this, &RunMonitor::showOutput);
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
    layout->addWidget(messages_);
    layout->addLayout(where);
    layout->addLayout(buttons);
    layout->addWidget(split, 1);
    output_->setToolTip("Results are written here; the workbench opens them when the run ends.");
    showOutput(run_->outputDir());
    if (run_->running()) {
        onStarted();
    }
}

void RunMonitor::setPlan(std::shared_ptr<const feasibility::Plan> plan) {
    run_->setPlan(std::move(plan));
    // Slurm's view of each cell's job; the local launcher has none.
    table_->setColumnHidden(models::RunStateModel::Scheduler, !run_->slurm());
    // A 100k-cell plan is listed only when someone looks, and never under a running run.
    if (isVisible() && run_->showPlan()) {
        updateProgress();
    }
}

void RunMonitor::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (run_->showPlan()) {
        updateProgress();
    }
}

void RunMonitor::showOutput(const QString& outDir) {
    output_->setText(outDir.isEmpty() ? QString("Output: not chosen")
                                      : QString("Output: %1").arg(outDir));
    // Another folder: its cells are listed afresh, never with the last folder's states.
    if (isVisible() && run_->showPlan()) {
        updateProgress();
    }
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

QCPItemText* RunMonitor::waitingNote() const {
    return plot_->findChild<QCPItemText*>("waiting");
}

QString RunMonitor::plotNote() const {
    const QCPItemText* note = waitingNote();
    return note ? note->text() : QString();
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
    const auto& plan = run_->plan();
    const auto* cell = plan && !cellId.isEmpty() ? model_->cell(cellId) : nullptr;
    waiting->setText(cellId.isEmpty() ? QString("no cell running")
                     : cell && cell->sweep
                         ? QString("no data: a collective sweep has no DDP buckets")
                         : QString("waiting for the first recorded bucket (after warmup)"));
    // One graph per rank, in rank order, so the legend reads rank 0, 1, ... whichever rank
    // reports first.
    const int row = cell ? model_->rowOf(cellId) : -1;
    const int ranks = row >= 0 && row < int(plan->cells.size())
                          ? plan->cells[std::size_t(row)].cell.worldSize
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
    if (QCPItemText* waiting = waitingNote()) {
        plot_->removeItem(waiting);
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

void RunMonitor::onStarted() {
    messages_->clearAll(); // the last run's refusal is no news about this one
    startCellPlot({});
    updateProgress();
}

void RunMonitor::onRunFinished(const runner::RunSummary& s, const QString& outDir) {
    if (!s.refused.isEmpty()) {
        messages_->error("The run did not start", s.refused);
    }
    if (!s.lost.isEmpty()) {
        messages_->error("The run stopped", s.lost);
    }
    if (!s.writeFailures.isEmpty()) {
        messages_->error("Results could not be written", s.writeFailures.join('\n'));
    }
    // A cell that ended before its first recorded bucket waits for nothing any more.
    if (QCPItemText* note = waitingNote(); note && note->text().startsWith("waiting")) {
        note->setText(
            plotCell_.isEmpty()
                ? QString("no data: no cell ran")
                : QString("no data: %1 ended before its first recorded bucket").arg(plotCell_));
        plot_->replot(QCustomPlot::rpQueuedReplot);
    }
    updateProgress();
    emit finished(s, outDir);
}

void RunMonitor::updateProgress() {
    const int total = model_->cellCount();
    overall_->setRange(0, std::max(1, total));
    overall_->setValue(model_->cellsFinished());
    const auto eta = model_->etaSeconds();
    const bool running = run_->running();
    startButton_->setEnabled(!running);
    changeOutput_->setEnabled(!running);
    pauseButton_->setEnabled(running);
    stopButton_->setEnabled(running);
    if (!running) {
        // Resume continues the paused run in the same folder, as F5 does; not after another plan.
        if (run_->paused() != (startButton_->text() == "Resume")) {
            startButton_->setText(run_->paused() ? "Resume" : "Start");
        }
        const int pending = model_->pendingCount();
        eta_->setText(
            total == 0         ? QString()
            : pending == total ? analysis::countText(total, "cell") + " planned"
            : run_->paused()
                ? QString("paused: %1; Resume runs the pending cells").arg(model_->stateCounts())
                : QString("%1: %2").arg(analysis::countText(total, "cell"), model_->stateCounts()));
    } else {
        eta_->setText(eta ? "about " + duration(*eta) + " left" : QString("estimating..."));
    }
}

QStringList RunMonitor::rankBarTexts() const {
    QStringList texts;
    for (const QProgressBar* bar : bars_) {
        if (!bar->isHidden()) {
            texts << bar->text();
        }
    }
    return texts;
}

QString RunMonitor::rankBarsTitle() const {
    return barsTitle_->isHidden() ? QString() : barsTitle_->text();
}

void RunMonitor::updateRankBars() {
    const QString id = model_->currentCell();
    const auto* cell = model_->cell(id);
    if (!cell || cell->ranks.isEmpty()) {
        // No cell has reported yet (a new run, an opened folder): no figures of another cell.
        barsTitle_->hide();
        for (QProgressBar* bar : bars_) {
            bar->hide();
        }
        return;
    }
    const bool done = cell->finished();
    barsTitle_->setText(
        done ? QString("Ranks of the last cell, %1 (%2):")
                   .arg(id,
                        model_->data(model_->index(model_->rowOf(id), models::RunStateModel::State))
                            .toString())
             : QString("Ranks of %1:").arg(id));
    barsTitle_->show();
    while (bars_.size() < cell->ranks.size()) {
        auto* bar = new QProgressBar(this);
        bar->setMaximumHeight(fontMetrics().height() + 6);
        rankBars_->addWidget(bar);
        bars_ << bar;
    }
    int i = 0;
    for (auto it = cell->ranks.begin(); it != cell->ranks.end(); ++it, ++i) {
        QProgressBar* bar = bars_[i];
        if (!it->sweptLast.isEmpty()) {
            // A sweep reports the collective and size it measured, not iterations of a step:
            // the bar fills with the doublings of the size towards the cell's largest.
            const double doublings = std::log2(std::max(2.0, cell->sweepMaxBytes / kSweepMinBytes));
            const double reached = std::clamp(
                std::log2(std::max(1.0, it->sweptBytes / kSweepMinBytes)), 0.0, doublings);
            bar->setRange(0, kSweepBarSteps);
            bar->setValue(done ? kSweepBarSteps
                               : int(std::lround(kSweepBarSteps * reached / doublings)));
            bar->setFormat(QString("rank %1: %2 %3")
                               .arg(it.key())
                               .arg(done ? "swept, last" : "measuring")
                               .arg(it->sweptLast));
        } else {
            bar->setRange(0, std::max(1, it->of));
            bar->setValue(it->iteration);
            bar->setFormat(QString("rank %1: iteration %v of %m, last step %2 ms")
                               .arg(it.key())
                               .arg(it->lastStepMs, 0, 'f', 1));
        }
        bar->setVisible(true);
    }
    for (; i < bars_.size(); ++i) {
        bars_[i]->setVisible(false);
    }
}

} // namespace commprof::widgets
