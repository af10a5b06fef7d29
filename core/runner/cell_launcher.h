// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What starts the ranks of one cell. `local` is a RankPool on this machine; `slurm` is one srun
// step inside a Slurm allocation. Both keep the runner's contract: one absolute deadline, every
// rank ended when one fails or the deadline passes, a record of what runs (pid files, job
// records) so that a later run ends what a killed one left, and one finished() per start().

#include "matrix/launcher.h"
#include "runner/rank_pool.h"

#include <QDeadlineTimer>
#include <QJsonObject>
#include <QObject>
#include <QStringList>

namespace commprof::runner {

struct CellLaunch {
    QString cellId;
    QString program;  // commprof-rank, absolute
    QStringList args; // flags shared by every rank
    int worldSize = 1;
    QString workDir;    // the cell's folder: the ranks run and write here
    QString resultsDir; // the run's folder: records of live ranks (.pids) and jobs (.jobs)
    QString runId;      // COMMPROF_RUN_ID of every rank
    QDeadlineTimer deadline;
    int graceMs = 3000; // between asking the ranks to end and forcing them
    matrix::LauncherSpec launcher;
    // loopback, or a rate: the local launcher then places the ranks on emulated hosts of
    // ranksPerHost ranks each, joined at that rate (runner/host_network.h).
    QString link = "loopback";
    int ranksPerHost = 1;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
};

class CellLauncher : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;
    virtual void start(const CellLaunch& launch) = 0;
    virtual void stop() = 0; // ends every rank; finished() follows with stopped set

signals:
    void progress(int rank, const QJsonObject& event); // the ranks' JSON progress lines
    void logLine(const QString& line);
    // The scheduler's view of the cell while it runs, e.g. {"state":"PENDING","reason":
    // "Resources","job_id":"12"}; only launchers with a scheduler emit it.
    void stateChanged(const QJsonObject& state);
    void finished(const commprof::runner::PoolOutcome& outcome);
};

CellLauncher* makeLauncher(matrix::LauncherKind kind, QObject* parent);

// The folders under a results folder where launchers record what runs.
QString pidDirOf(const QString& resultsDir);
QString jobDirOf(const QString& resultsDir);

} // namespace commprof::runner
