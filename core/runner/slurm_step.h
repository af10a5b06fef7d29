// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The text of a cell's Slurm step: the srun options, the batch script that runs it in an
// allocation of its own, and what srun writes back (labelled rank lines, the step id, each
// task's exit, slurmstepd's notices).

#include "matrix/launcher.h"
#include "runner/launcher_base.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <vector>

namespace commprof::runner {

// Slurm's --time in whole minutes, rounded up: `time_limit`, else the cell's deadline.
int slurmMinutes(const matrix::LauncherSpec& spec, double timeoutS);

// Options of the step that runs the cell's ranks (both inside an allocation and in the batch
// script); `nodeList` pins the step's nodes inside a larger allocation.
QStringList srunOptions(const matrix::LauncherSpec& spec, int worldSize, const QString& name,
                        int minutes, const QStringList& nodeList = {});

// sbatch's options of a cell's own allocation, written as #SBATCH lines.
QStringList sbatchDirectives(const matrix::LauncherSpec& spec, int worldSize, int minutes);

// The batch script: the allocation's directives, MASTER_ADDR from the first host of
// SLURM_JOB_NODELIST, then `exec srun ... commprof-rank ...`.
QByteArray batchScript(const QString& cellId, const QStringList& directives, int port,
                       const QStringList& srunCommand);

// POSIX shell quoting.
QString shellQuote(const QString& word);

// One line of srun's output: "R: text" is rank R's; anything else is srun's or slurmstepd's own
// (rank -1).
struct SrunLine {
    int rank = -1;
    QByteArray text;
};
SrunLine splitLabel(const QByteArray& line);

// "srun: launching StepId=12.3 on host ..." -> "12.3"; empty when the line is not that.
QString launchedStep(const QByteArray& line);
// The batch script's "commprof: MASTER_ADDR=host" line -> "host"; empty when the line is not that.
QString announcedMaster(const QByteArray& line);
// slurmstepd's "*** JOB 12 ON vm CANCELLED AT ... ***" (or STEP), trimmed; empty otherwise.
QString stepdNotice(const QByteArray& line);
// srun's "node: task(s) 0-1,3: Exited with exit code 2 | Killed | Completed | ..." sets those
// ranks' exits. False when the line is not one.
bool readTaskExits(const QByteArray& line, std::vector<RankExit>& ranks);

// "RUNNING job 12 step 12.0 on vm (reason)": a launcher's stateChanged() for people.
QString schedulerStateText(const QJsonObject& state);

} // namespace commprof::runner
