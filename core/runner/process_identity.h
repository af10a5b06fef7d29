// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Identifies a rank process the runner started, so a pid file can never make commprof signal
// anything else: the pid plus the kernel's start time (a reused pid is never touched), and the
// process must be a commprof-rank binary whose environment carries the run id it was given.

#include <QByteArray>
#include <QList>
#include <QString>

namespace commprof::runner {

// Start time in clock ticks since boot (/proc/PID/stat field 22); 0 when the process is gone.
quint64 processStartTime(qint64 pid);

struct PidRecord {
    qint64 pid = 0;
    quint64 startTime = 0;
    QString runId; // COMMPROF_RUN_ID of the rank
    QString path;  // the pid file
};

// "PID STARTTIME RUNID". Empty on success, else why not.
QString writePidRecord(const QString& path, qint64 pid, const QString& runId);
bool readPidRecord(const QString& path, PidRecord& out);
// The space-separated words of a small record file (a pid file, a Slurm job record): exactly
// `count` of them, or none when the file is missing, a link, too large or has another count.
QList<QByteArray> readRecordWords(const QString& path, int count);
// True when the recorded process still runs (same pid, same start time).
bool stillRunning(const PidRecord& record);
// True when the recorded process still runs, /proc/PID/exe is a commprof-rank binary (or the
// fork server's client, commprof-rank-fork) and its environment holds COMMPROF_RUN_ID=<the
// record's run id>: a rank this run id's launcher started.
bool isRecordedRank(const PidRecord& record);

// Ends the ranks recorded in DIR/*.pid and DIR/*.pid.*.tmp (SIGTERM, then SIGKILL) and
// removes the files. A record whose process is gone or is not such a rank is removed and its
// process left alone. Returns how many ranks were ended.
int endRecordedProcesses(const QString& dir, int graceMs = 2000);

// A secret of `bits` random bits from the system's generator, in lower-case hex.
QString randomToken(int bits = 128);

} // namespace commprof::runner
