// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One run at a time per results folder: an exclusive flock on DIR/.lock, held for as long as a
// run writes into DIR. A second run on the same folder is refused, naming the first one's pid,
// instead of ending its ranks and moving its cells aside. The kernel drops the lock when the
// holder dies, so a killed launcher never leaves the folder locked.

#include <QString>

namespace commprof::runner {

class ResultsLock {
public:
    ResultsLock() = default;
    ~ResultsLock();
    ResultsLock(const ResultsLock&) = delete;
    ResultsLock& operator=(const ResultsLock&) = delete;

    // Takes the lock without waiting. Empty on success, else why not (who holds it).
    QString acquire(const QString& dir);
    void release();

    // The pid of the run holding DIR's lock; 0 when none does, -1 when one does but its pid
    // is unknown.
    static qint64 holder(const QString& dir);

private:
    int fd_ = -1;
};

} // namespace commprof::runner
