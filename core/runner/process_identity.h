#pragma once
// Identifies a process by pid plus kernel start time, so a pid file can never make the runner
// end an unrelated process that reused the pid.

#include <QString>

namespace commprof::runner {

// Start time in clock ticks since boot (/proc/PID/stat field 22); 0 when the process is gone.
quint64 processStartTime(qint64 pid);

struct PidRecord {
    qint64 pid = 0;
    quint64 startTime = 0;
    QString path; // the pid file
};

bool writePidRecord(const QString& path, qint64 pid);
bool readPidRecord(const QString& path, PidRecord& out);
// True when the recorded process still runs (same pid, same start time).
bool stillRunning(const PidRecord& record);

// Ends the processes recorded in DIR/*.pid (SIGTERM, then SIGKILL) and removes the files.
// Returns how many were still running.
int endRecordedProcesses(const QString& dir, int graceMs = 2000);

} // namespace commprof::runner
