// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Slurm launcher: a cell's ranks as one srun step. Inside an allocation (commprof run
// itself under salloc or sbatch: SLURM_JOB_ID is set) the step runs in that allocation, on its
// first nodes; otherwise each cell asks for an allocation of its own, `sbatch --wait` of a
// batch script written into the cell's folder that calls srun. MASTER_ADDR is the first host
// of the step's nodes. The cell's deadline becomes --time and, when it passes, scancel. While
// the cell runs, Slurm's state of it is polled (scontrol) and reported; at its end the job's
// state, reason and exit codes (sacct where accounting runs, else scontrol and srun's own
// report of each task) say why it failed. The job or step is recorded under .jobs so a later
// run cancels it if this one is killed.

#include "platform/slurm_cluster.h"
#include "runner/cell_launcher.h"
#include "runner/followed_file.h"
#include "runner/launcher_base.h"

#include <QMap>
#include <QProcess>
#include <QTimer>

#include <array>
#include <functional>
#include <optional>

namespace commprof::runner {

class SlurmLauncher : public CellLauncher {
    Q_OBJECT
public:
    explicit SlurmLauncher(QObject* parent = nullptr);
    ~SlurmLauncher() override;
    void start(const CellLaunch& launch) override;
    void stop() override;

private:
    enum class Mode { Allocation, OwnJob };
    using Record = QMap<QString, QString>;

    void launchAttempt();
    QString stepCommand(QStringList& command, QProcessEnvironment& env, int port, int minutes);
    QString jobCommand(QStringList& command, int port, int minutes);
    void readClient(QProcess::ProcessChannel channel);
    void takeLine(const QByteArray& line);
    void tailJobOutput();
    void poll();
    void onJobKnown(const QString& id);
    void onStepKnown(const QString& id);
    void endWaiterOnceJobEnded(const Record& job);
    void setState(const QString& state, const QString& reason, const QString& nodes);
    void cancel(const QString& why);
    void onClientFinished(int exitCode, QProcess::ExitStatus status);
    void settle(int triesLeft);
    void readAccounting(const Record& slurm);
    void conclude(const Record& slurm, const Record& accounting);
    QString slurmAccount(const QString& state, const QString& reason,
                         const QString& exitCode) const;
    void finishAttempt();
    // Runs a short Slurm command without blocking the event loop.
    void ask(const QString& program, const QStringList& args,
             const std::function<void(const platform::ToolResult&)>& done);
    // What scancel ends: the job, or the step inside an allocation.
    QString target() const { return mode_ == Mode::OwnJob ? jobId_ : a_.stepId; }
    void recordTarget();
    void removeRecord();

    CellLaunch launch_;
    platform::SlurmTools tools_;
    Mode mode_ = Mode::OwnJob;
    PoolOutcome outcome_;
    QProcess* client_ = nullptr; // srun (inside an allocation) or sbatch --wait
    // What each attempt (each rendezvous port) starts afresh.
    struct Attempt {
        int clientExit = -1;
        std::array<LineSplitter, 2> clientLines; // stdout, stderr
        FollowedFile jobOutput;                  // slurm-<job>.out of a job of its own
        LineSplitter jobOutputLines;
        QString stepId, state, masterAddr;
        QStringList notices;   // slurmstepd's *** lines
        QStringList srunLines; // srun's and sbatch's own error lines, the last few
        std::vector<StderrTail> rankErr;
        bool cancelling = false, cancelWhenKnown = false, finishing = false, waiterEnding = false;
        std::optional<int> waiterExit; // the job's exit code, when sbatch --wait was ended
    };
    Attempt a_;
    QString jobId_;
    QString reason_;
    QString nodes_;
    bool polling_ = false;
    QTimer* deadlineTimer_;
    QTimer* pollTimer_;
    QTimer* killTimer_;
};

} // namespace commprof::runner
