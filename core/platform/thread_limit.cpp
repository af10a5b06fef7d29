// SPDX-License-Identifier: GPL-3.0-or-later
#include "thread_limit.h"

#include "files/safe_file.h"

#include <QDir>

#include <sys/resource.h>
#include <unistd.h>

namespace commprof::platform {

bool processStatus(const QString& path, quint64& uid, quint64& threads) {
    constexpr qint64 kMaxStatusBytes = 64 * 1024;
    const QByteArray text =
        files::readRegularFileOrEmpty(path, kMaxStatusBytes, files::Links::Follow);
    bool haveUid = false;
    bool haveThreads = false;
    for (const QByteArray& line : text.split('\n')) {
        if (line.startsWith("Uid:")) {
            uid = line.mid(4).simplified().split(' ').value(0).toULongLong(&haveUid);
        } else if (line.startsWith("Threads:")) {
            threads = line.mid(8).trimmed().toULongLong(&haveThreads);
        }
    }
    return haveUid && haveThreads;
}

ThreadLimit readThreadLimit(const QString& procRoot) {
    ThreadLimit out;
    rlimit rl{};
    const quint64 uid = ::getuid();
    if (uid == 0 || ::getrlimit(RLIMIT_NPROC, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) {
        return out;
    }
    out.limit = quint64(rl.rlim_cur);
    const QDir proc(procRoot);
    for (const QString& pid : proc.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        quint64 owner = 0;
        quint64 threads = 0;
        if (pid.front().isDigit() &&
            processStatus(proc.filePath(pid + "/status"), owner, threads) && owner == uid) {
            out.inUse += threads;
        }
    }
    return out;
}

QString threadShortfall(const ThreadLimit& limit, quint64 need) {
    if (!limit.limit || limit.headroom() >= need) {
        return {};
    }
    return QString("RLIMIT_NPROC (ulimit -u) is %1 threads for user %2, %3 of them in use: the "
                   "cell's ranks need about %4 more; raise it (ulimit -u) or run fewer ranks")
        .arg(*limit.limit)
        .arg(::getuid())
        .arg(limit.inUse)
        .arg(need);
}

} // namespace commprof::platform
