// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Records of the Slurm jobs and steps a run started (RESULTS/.jobs/<cell>.job), so that a run
// started after one that was killed cancels what that one left. As with pid files, a record is
// acted on only when Slurm confirms it: the job or step still runs, under this user, with the
// name commprof gave it, and (a job) the comment carrying the run id. Anything else is removed
// and left alone.

#include <QProcessEnvironment>
#include <QString>

namespace commprof::runner {

// What commprof names a cell's job or step, and the comment that ties a job to its run.
QString slurmJobName(const QString& cellId);
QString slurmJobComment(const QString& runId);

struct JobRecord {
    QString id; // "12" (a job of its own) or "12.3" (a step in an allocation)
    QString name;
    QString runId;
    QString path; // the record file
    bool isStep() const { return id.contains('.'); }
};

// "ID NAME RUNID". Empty on success, else why not.
QString writeJobRecord(const QString& path, const JobRecord& record);

// Cancels every job and step recorded in DIR that Slurm still runs as its record describes it,
// waits (at most waitMs) until Slurm reports them ended, and removes the records. Records Slurm
// cannot be asked about (no scontrol) are kept for a later run. Returns how many were cancelled.
int endRecordedJobs(const QString& dir, const QProcessEnvironment& env, int waitMs = 60000);

// Slurm job states in which the job's processes may still run.
bool slurmStateActive(const QString& state);

} // namespace commprof::runner
