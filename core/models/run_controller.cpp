// SPDX-License-Identifier: GPL-3.0-or-later
#include "run_controller.h"

#include "jobs/release.h"
#include "models/run_state_model.h"

#include <QDir>
#include <QThread>
#include <QTimer>

#include <algorithm>
#include <utility>

namespace commprof::models {
namespace {

bool sameCells(const feasibility::Plan& a, const feasibility::Plan& b) {
    return std::equal(a.cells.begin(), a.cells.end(), b.cells.begin(), b.cells.end(),
                      [](const auto& x, const auto& y) { return x.cell.id == y.cell.id; });
}

} // namespace

RunController::RunController(QObject* parent) : QObject(parent), model_(new RunStateModel(this)) {}

RunController::~RunController() {
    if (runnerThread_) {
        // Deleting the runner in its thread ends its ranks (the launcher's destructor does).
        runnerThread_->quit();
        runnerThread_->wait();
    }
}

bool RunController::slurm() const {
    return plan_ && plan_->matrix.launcher.kind == matrix::LauncherKind::Slurm;
}

void RunController::setPlan(std::shared_ptr<const feasibility::Plan> plan) {
    jobs::releaseInBackground(std::exchange(plan_, std::move(plan)));
    if (finishedPlan_ && plan_ && sameCells(*finishedPlan_, *plan_)) {
        planShown_ = true; // the finished run's states stay
        return;
    }
    jobs::releaseInBackground(std::exchange(finishedPlan_, nullptr));
    planShown_ = false;
    paused_ = false; // other cells: nothing of the paused run to resume
}

// A folder's recorded states belong to its own cells: a plan of another matrix whose cell ids
// happen to match (a 14-cell matrix beside a 276-cell study) never shows them as its own.
bool RunController::recordedApplies() const {
    return !recordedDir_.isEmpty() && recordedDir_ == outDir_ &&
           runner::folderRefusal(outDir_, plan_.get()).isEmpty();
}

void RunController::listPlan() {
    model_->setPlan(plan_);
    if (recordedApplies()) {
        model_->showRecorded(recorded_);
    }
    planShown_ = true;
}

bool RunController::showPlan() {
    if (runner_ || planShown_ || !plan_) {
        return false;
    }
    listPlan();
    return true;
}

void RunController::setOutput(const QString& outDir, const QString& rankProgram) {
    if (runner_) {
        return; // a running run keeps the folder it writes: its end opens that one
    }
    const QString dir = outDir.isEmpty() ? QString() : QDir(outDir).absolutePath();
    if (dir != outDir_) {
        // The listed states (a finished or paused run's, a folder's) were another folder's.
        jobs::releaseInBackground(std::exchange(finishedPlan_, nullptr));
        planShown_ = false;
        paused_ = false;
    }
    outDir_ = dir;
    rankProgram_ = rankProgram;
    emit outputChanged(outDir_);
}

void RunController::showRecorded(const QString& dir,
                                 const QHash<QString, RunStateModel::RecordedCell>& cells) {
    recordedDir_ = dir.isEmpty() ? QString() : QDir(dir).absolutePath();
    recorded_ = cells;
    if (planShown_ && !runner_ && !paused_ && recordedApplies()) {
        model_->showRecorded(recorded_);
    }
}

void RunController::start() {
    if (runner_ || !plan_ || plan_->cells.empty() || outDir_.isEmpty()) {
        return;
    }
    // The runner's own checks of the folder, before anything says the run started.
    if (const QString refusal = runner::folderRefusal(outDir_, plan_.get()); !refusal.isEmpty()) {
        runner::RunSummary refused;
        refused.refused = refusal;
        emit logLine("run refused: " + refusal);
        // Never from inside start(), as a runner's refusal: callers connect, then wait.
        QTimer::singleShot(0, this, [this, refused] { emit finished(refused, outDir_); });
        return;
    }
    jobs::releaseInBackground(std::exchange(finishedPlan_, nullptr));
    const bool resuming = std::exchange(paused_, false);
    if (!resuming) {
        listPlan();
    }
    pauseRequested_ = false;
    stopRequested_ = false;
    runner::RunOptions options;
    options.outDir = outDir_;
    options.rankProgram = rankProgram_;
    options.resume = true;
    runnerThread_ = new QThread(this);
    runnerThread_->setObjectName("runner");
    runner_ = new runner::MatrixRunner(*plan_, options);
    runner_->moveToThread(runnerThread_);
    connect(runnerThread_, &QThread::finished, runner_, &QObject::deleteLater);
    connect(runner_, &runner::MatrixRunner::cellStateChanged, model_, &RunStateModel::onCellState);
    connect(runner_, &runner::MatrixRunner::rankProgress, model_, &RunStateModel::onRankProgress);
    connect(runner_, &runner::MatrixRunner::launcherState, model_, &RunStateModel::onLauncherState);
    connect(runner_, &runner::MatrixRunner::cellStateChanged, this,
            [this](const QString& id, runner::CellState s, const QString& d) {
                // A cell the user's Stop ended is "stopped" (its own state), not "failed"; a
                // detail that starts with the state's word ("stopped on request") is not said
                // twice.
                const QString state = runner::toString(s);
                emit logLine(d.isEmpty()                 ? QString("%1: %2").arg(id, state)
                             : d.startsWith(state + " ") ? QString("%1: %2").arg(id, d)
                                                         : QString("%1: %2: %3").arg(id, state, d));
            });
    connect(runner_, &runner::MatrixRunner::logLine, this,
            [this](const QString& id, const QString& line) {
                emit logLine(id.isEmpty() ? line : id + ": " + line);
            });
    connect(runner_, &runner::MatrixRunner::finished, this, &RunController::onRunFinished);
    emit started();
    emit logLine(
        resuming ? QString("run resumed: %1 of %2 cells to run into %3")
                       .arg(model_->pendingCount())
                       .arg(plan_->cells.size())
                       .arg(outDir_)
                 : QString("run started: %1 cells into %2").arg(plan_->cells.size()).arg(outDir_));
    runnerThread_->start();
    QMetaObject::invokeMethod(runner_, &runner::MatrixRunner::start, Qt::QueuedConnection);
}

void RunController::onRunFinished(const runner::RunSummary& s) {
    if (!s.lost.isEmpty()) {
        emit logLine(s.lost);
    }
    // A pause or a Stop leaves the folder resumable: start() continues it with the cells still
    // to run, the stopped one among them.
    paused_ = s.stopped && (pauseRequested_ || stopRequested_) && s.refused.isEmpty() &&
              s.lost.isEmpty() && model_->pendingCount() + model_->stoppedCount() > 0;
    // A refused run ran nothing; the runner's own line says why.
    if (s.refused.isEmpty()) {
        const QString counts = QString("%1 complete, %2 failed, %3 stopped, %4 already complete, "
                                       "%5 skipped_infeasible")
                                   .arg(s.complete)
                                   .arg(s.failed)
                                   .arg(s.stoppedCells)
                                   .arg(s.resumed)
                                   .arg(s.skippedInfeasible);
        emit logLine(
            paused_ ? QString("run %1: %2; %3 cells still to run, Resume (F5) runs "
                              "them into the same folder")
                          .arg(stopRequested_ ? "stopped" : "paused", counts)
                          .arg(model_->pendingCount() + s.stoppedCells)
                    : QString("run %1: %2").arg(s.stopped ? "ended early" : "finished", counts));
    }
    recorded_.clear(); // the run changed what the folder holds
    recordedDir_.clear();
    runnerThread_->quit();
    runnerThread_->wait();
    runnerThread_->deleteLater();
    runnerThread_ = nullptr;
    runner_ = nullptr; // deleted with its thread's end
    finishedPlan_ = plan_;
    emit finished(s, outDir_);
}

void RunController::pauseAfterCurrentCell() {
    if (runner_) {
        QMetaObject::invokeMethod(
            runner_, [r = runner_] { r->pauseAfterCurrentCell(); }, Qt::QueuedConnection);
        pauseRequested_ = true;
        emit logLine("pausing after the current cell");
    }
}

void RunController::stop() {
    if (runner_) {
        stopRequested_ = true;
        emit logLine(slurm() ? "stopping: cancelling the running cell's Slurm job (scancel)"
                             : "stopping: ending every rank of the running cell");
        QMetaObject::invokeMethod(runner_, &runner::MatrixRunner::stop, Qt::QueuedConnection);
    }
}

} // namespace commprof::models
