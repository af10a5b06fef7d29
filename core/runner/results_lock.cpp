// SPDX-License-Identifier: GPL-3.0-or-later
#include "results_lock.h"

#include "files/safe_file.h"

#include <QDir>
#include <QFile>

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace commprof::runner {
namespace {

QString lockPath(const QString& dir) {
    return QDir(dir).filePath(".lock");
}

qint64 recordedPid(int fd) {
    char buf[32] = {};
    const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
    bool ok = false;
    const qint64 pid = n > 0 ? QByteArray(buf, int(n)).trimmed().toLongLong(&ok) : 0;
    return ok && pid > 0 ? pid : -1;
}

QString heldBy(const QString& dir, qint64 pid) {
    return QString("%1 is in use by another commprof run (%2); wait for it to finish or stop it, "
                   "then run again")
        .arg(dir, pid > 0 ? QString("pid %1").arg(pid) : QString("pid unknown"));
}

} // namespace

ResultsLock::~ResultsLock() {
    release();
}

QString ResultsLock::acquire(const QString& dir) {
    release();
    const QString path = lockPath(dir);
    // O_CLOEXEC: ranks must not inherit the lock and hold it after the launcher is gone.
    const int fd = ::open(QFile::encodeName(path).constData(),
                          O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        const int e = errno;
        return e == ELOOP ? files::linkRefused(path)
                          : QString("%1: cannot open: %2").arg(path, std::strerror(e));
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return path + ": not a regular file";
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        const int e = errno;
        const qint64 pid = recordedPid(fd);
        ::close(fd);
        return e == EWOULDBLOCK ? heldBy(dir, pid)
                                : QString("%1: cannot lock: %2").arg(path, std::strerror(e));
    }
    const QByteArray pid = QByteArray::number(qint64(::getpid())) + "\n";
    if (::ftruncate(fd, 0) != 0 ||
        ::pwrite(fd, pid.constData(), std::size_t(pid.size()), 0) != ssize_t(pid.size())) {
        const int e = errno;
        ::close(fd);
        return QString("%1: cannot write: %2").arg(path, std::strerror(e));
    }
    fd_ = fd;
    return {};
}

void ResultsLock::release() {
    if (fd_ >= 0) {
        ::close(fd_); // closing the only descriptor drops the flock
        fd_ = -1;
    }
}

qint64 ResultsLock::holder(const QString& dir) {
    const int fd = ::open(QFile::encodeName(lockPath(dir)).constData(),
                          O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        return 0;
    }
    qint64 pid = 0;
    if (::flock(fd, LOCK_SH | LOCK_NB) != 0) {
        pid = errno == EWOULDBLOCK ? recordedPid(fd) : 0;
    }
    ::close(fd);
    return pid;
}

} // namespace commprof::runner
