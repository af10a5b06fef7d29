// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// How many more threads this user may start: RLIMIT_NPROC (`ulimit -u`) counts every thread of
// the real user id, and a rank that meets it mid-start-up waits in its thread pool forever
// instead of failing. The runner asks before it starts ranks.

#include <QString>

#include <optional>

namespace commprof::platform {

struct ThreadLimit {
    std::optional<quint64> limit; // the soft RLIMIT_NPROC; none when unlimited or not enforced
    quint64 inUse = 0;            // threads of the real user id now, from /proc
    quint64 headroom() const { return limit && *limit > inUse ? *limit - inUse : 0; }
};

// The real user's thread limit and use. Root (uid 0) is not held to it by the kernel.
ThreadLimit readThreadLimit(const QString& procRoot = "/proc");

// "Uid:" (the real one) and "Threads:" of a /proc/PID/status file; false when it is gone.
bool processStatus(const QString& path, quint64& uid, quint64& threads);

// Why NEED more threads cannot be started under LIMIT ("RLIMIT_NPROC ..." naming the limit,
// the use and how to raise it), or empty when they can.
QString threadShortfall(const ThreadLimit& limit, quint64 need);

} // namespace commprof::platform
