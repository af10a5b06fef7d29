// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A run of the plan started from the workbench: what it runs (the plan, the results folder,
// commprof-rank), the MatrixRunner doing it in a thread of its own (starting ranks, waiting for
// them and ending stale ones never blocks the GUI; its signals arrive queued), and the
// RunStateModel it feeds. The run monitor displays this and forwards the user's start, pause
// and stop; the menus may call them directly. A paused run is resumed by start(): the runner
// continues the same folder with the cells still to run, and the cells done stay done.

#include "feasibility/plan.h"
#include "models/run_state_model.h"
#include "runner/matrix_runner.h"

#include <QHash>
#include <QObject>
#include <QString>

#include <memory>

class QThread;

namespace commprof::models {

class RunController : public QObject {
    Q_OBJECT
public:
    explicit RunController(QObject* parent = nullptr);
    ~RunController() override; // ends a running cell's ranks

    RunStateModel* model() const { return model_; }
    // The plan the next start() runs. A plan with the cells of the run that just ended (the
    // designer re-plans when the run's results open) keeps that run's states in the model.
    void setPlan(std::shared_ptr<const feasibility::Plan> plan);
    const std::shared_ptr<const feasibility::Plan>& plan() const { return plan_; }
    // Lists the plan in the model, unless it is listed or a run is showing. A 100k-cell plan
    // costs a moment: the monitor asks for it only when it is seen. True when it listed it.
    bool showPlan();
    // Another folder than the one the listed states belong to lists the plan afresh.
    void setOutput(const QString& outDir, const QString& rankProgram);
    // What the results folder `dir` records of its cells (an opened folder): the model shows
    // those states while `dir` is the output folder, until a run changes them.
    void showRecorded(const QString& dir, const QHash<QString, RunStateModel::RecordedCell>& cells);
    QString outputDir() const { return outDir_; }
    QString rankProgram() const { return rankProgram_; }
    bool running() const { return runner_ != nullptr; }
    // The last run ended at the user's pause with cells still to run; start() resumes it.
    bool paused() const { return paused_; }
    // Paused by the user's Stop (its results are worth opening), not by "pause after the cell".
    bool stoppedByUser() const { return paused_ && stopRequested_; }
    bool slurm() const; // the plan's cells run as Slurm jobs

public slots:
    void start(); // nothing without a plan with cells and a results folder, or while running
    void pauseAfterCurrentCell();
    void stop();

signals:
    void started();
    void outputChanged(const QString& outDir);
    // What the run log shows: the run's start and end, every cell's state, the launchers' lines.
    void logLine(const QString& line);
    // The run ended (complete, failed, paused or stopped); its results are in outDir.
    void finished(const commprof::runner::RunSummary& summary, const QString& outDir);

private:
    void onRunFinished(const runner::RunSummary& summary);
    void listPlan();
    bool recordedApplies() const;

    RunStateModel* model_;
    std::shared_ptr<const feasibility::Plan> plan_;
    // The plan of the run whose end the model shows.
    std::shared_ptr<const feasibility::Plan> finishedPlan_;
    bool planShown_ = false;
    QString outDir_;
    QString rankProgram_;
    QHash<QString, RunStateModel::RecordedCell> recorded_;
    QString recordedDir_; // the folder recorded_ was read from
    bool pauseRequested_ = false;
    bool stopRequested_ = false;
    bool paused_ = false;
    runner::MatrixRunner* runner_ = nullptr; // lives in runnerThread_
    QThread* runnerThread_ = nullptr;
};

} // namespace commprof::models
