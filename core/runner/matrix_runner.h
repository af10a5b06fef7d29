// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Runs a plan cell by cell into a results directory (docs/formats.md): infeasible cells are
// recorded as skipped_infeasible with their numbers, feasible ones are started by the plan's
// launcher (a local rank pool, or one Slurm step); a manifest is written last, atomically,
// only when every rank succeeded. The folder is locked for the run, never entered through a
// symbolic link, and every write is checked: a file that could not be written (a full disk)
// makes its cell incomplete, and the reason is kept in memory for the summary.

#include "feasibility/plan.h"
#include "runner/cell_launcher.h"
#include "runner/fork_server.h"
#include "runner/results_lock.h"

#include <QElapsedTimer>
#include <QObject>
#include <QString>

#include <memory>
#include <utility>

namespace commprof::runner {

struct RunOptions {
    QString outDir;      // made absolute: ranks run in their cell's folder
    QString rankProgram; // made absolute (or found on PATH) likewise
    bool resume = false;
    QString onlyCell;
    int graceMs = 3000;
};

// Stopped: ended by the user's Stop or a signal to the run (not the cell's fault; a resumed run
// runs it again), told apart from Failed wherever a state is shown or recorded.
enum class CellState { Pending, Running, Complete, Failed, Stopped, SkippedInfeasible, Skipped };
const char* toString(CellState s);

struct RunSummary {
    int complete = 0;
    int failed = 0;
    int stoppedCells = 0; // ended on request: not counted in failed
    int skippedInfeasible = 0;
    int resumed = 0;
    bool stopped = false;
    QString refused;           // non-empty: the run did not start, and why
    QString lost;              // non-empty: the results folder went away mid-run, and the run
                               // stopped
    QStringList writeFailures; // "cell: file: reason" for every write that failed
};

class MatrixRunner : public QObject {
    Q_OBJECT
public:
    MatrixRunner(feasibility::Plan plan, RunOptions options, QObject* parent = nullptr);

    void start();
    void pauseAfterCurrentCell() { pauseRequested_ = true; }
    void stop(); // ends the running cell's ranks (scancel under Slurm); the cell is recorded as
                 // stopped
    RunSummary runBlocking();
    const feasibility::Plan& plan() const { return plan_; }

signals:
    void cellStateChanged(const QString& cellId, commprof::runner::CellState state,
                          const QString& detail);
    void rankProgress(const QString& cellId, int rank, const QJsonObject& event);
    void logLine(const QString& cellId, const QString& line);
    // The scheduler's state of the running cell (Slurm: PENDING / RUNNING / COMPLETED / FAILED /
    // CANCELLED, with reason, job and step ids), each time it changes.
    void launcherState(const QString& cellId, const QJsonObject& state);
    void finished(const commprof::runner::RunSummary& summary);

private:
    QString prepare();
    void next();
    void finish();
    void runCell(const feasibility::PlannedCell& pc);
    void onPoolFinished(const feasibility::PlannedCell& pc, PoolOutcome outcome);
    // A cell that did not complete: `ending` is CellState::Failed, or CellState::Stopped for
    // one ended on request (counted apart from the failed cells).
    void endCell(const feasibility::PlannedCell& pc, CellState ending, const QString& failure,
                 const QStringList& writeFailures);
    int rankThreads(const feasibility::PlannedCell& pc) const;
    QString threadShortfall(const feasibility::PlannedCell& pc) const;
    QStringList rankArgs(const feasibility::PlannedCell& pc, const QString& cellDir) const;
    QString cellDir(const QString& id) const;
    QString writeRunJson();
    QString folderLost() const;
    void startForkServer(const QString& cellId);
    void onForkServerLost(const QString& why);

    feasibility::Plan plan_;
    RunOptions options_;
    QString runId_;
    ResultsLock lock_;
    std::size_t nextIndex_ = 0;
    CellLauncher* launcher_ = nullptr;
    // Local ranks are forked from it once it serves: libtorch's start-up paid once per run.
    std::unique_ptr<ForkServer> forkServer_;
    QString execReason_;  // why the running cell's ranks are exec'd; empty when forked
    QString forkLost_;    // why the server went while the running cell's ranks were forked
    QString runningCell_; // the cell whose ranks run now; empty between cells
    RunSummary summary_;
    bool pauseRequested_ = false;
    bool stopRequested_ = false;
    std::pair<quint64, quint64> outId_; // the results folder's device and inode
    QElapsedTimer cellClock_; // monotonic: a wall clock stepped mid-cell moves no duration
};

// Why a run that continues `outDir` (--resume, as the workbench's runs do) would be refused it,
// as far as reading the folder tells: the checks prepare() makes before it writes (other files
// than a results folder's, a link among its entries, a run of another matrix recorded). `plan`
// may be null (the matrix is then not compared). Empty when the run may go there. Reads only.
QString folderRefusal(const QString& outDir, const feasibility::Plan* plan);

// Empty on success, else "PATH: reason".
QString writeJsonAtomically(const QString& path, const QJsonObject& doc);

} // namespace commprof::runner

Q_DECLARE_METATYPE(commprof::runner::CellState)
Q_DECLARE_METATYPE(commprof::runner::RunSummary)
