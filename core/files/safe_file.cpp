// SPDX-License-Identifier: GPL-3.0-or-later
#include "safe_file.h"

#include <QDir>
#include <QFile>
#include <QScopeGuard>

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace commprof::files {
namespace {

QString reason(int error) {
    return QString::fromLocal8Bit(std::strerror(error));
}

const QString kLinkRefused =
    "a symbolic link; commprof never follows links inside a results folder (remove it)";

// Writes every byte to fd unless `error` (an errno) already says it failed, fsyncs and closes
// it: 0, or the errno of the first failure.
int writeSyncClose(int fd, const QByteArray& bytes, int error) {
    for (qint64 done = 0; error == 0 && done < bytes.size();) {
        const ssize_t n = ::write(fd, bytes.constData() + done, std::size_t(bytes.size() - done));
        if (n >= 0) {
            done += n;
        } else if (errno != EINTR) {
            error = errno;
        }
    }
    if (error == 0 && ::fsync(fd) != 0) {
        error = errno;
    }
    if (::close(fd) != 0 && error == 0) {
        error = errno;
    }
    return error;
}

void syncDirectoryOf(const QByteArray& path) {
    const QByteArray dir = QFile::encodeName(QFileInfo(QFile::decodeName(path)).path());
    const int fd = ::open(dir.constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        ::fsync(fd); // the rename's durability; its failure loses nothing already written
        ::close(fd);
    }
}

} // namespace

FileError::FileError(const QString& p, const QString& d)
    : std::runtime_error((p + ": " + d).toStdString()), path(p), detail(d) {}

int openRegularFile(const QString& path, Links links) {
    const QByteArray name = QFile::encodeName(path);
    // O_NONBLOCK: opening a FIFO must not wait for a writer.
    const int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | (links == Links::Refuse ? O_NOFOLLOW : 0);
    const int fd = ::open(name.constData(), flags);
    if (fd < 0) {
        const int e = errno;
        if (e == ELOOP && links == Links::Refuse) {
            throw FileError(path, kLinkRefused);
        }
        throw FileError(path, "cannot open: " + reason(e));
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        throw FileError(path, "not a regular file (a device, FIFO or directory is never read)");
    }
    return fd;
}

QByteArray readRegularFile(const QString& path, qint64 maxBytes, Links links,
                           const QString& raise) {
    const int fd = openRegularFile(path, links);
    const auto closeFd = qScopeGuard([fd] { ::close(fd); });
    struct stat st {};
    ::fstat(fd, &st);
    const auto tooLarge = [&](const QString& size) {
        return FileError(path, QString("%1, above the limit of %2 bytes%3")
                                   .arg(size)
                                   .arg(maxBytes)
                                   .arg(raise.isEmpty() ? QString() : "; " + raise));
    };
    if (st.st_size > maxBytes) {
        throw tooLarge(QString("%1 bytes").arg(qint64(st.st_size)));
    }
    QByteArray out;
    out.reserve(qsizetype(st.st_size));
    char chunk[65536];
    for (;;) {
        const ssize_t n = ::read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            throw FileError(path, "cannot read: " + reason(errno));
        }
        if (n == 0) {
            break;
        }
        if (out.size() + n > maxBytes) { // a file that grows, or a /proc file reporting size 0
            throw tooLarge("more than that");
        }
        out.append(chunk, n);
    }
    return out;
}

QByteArray readRegularFileOrEmpty(const QString& path, qint64 maxBytes, Links links) {
    try {
        return readRegularFile(path, maxBytes, links);
    } catch (const FileError&) {
        return {};
    }
}

QString writeAtomically(const QString& path, const QByteArray& bytes) {
    QByteArray tmpl = QFile::encodeName(path) + ".XXXXXX.tmp";
    // mkostemps creates with O_EXCL: it never opens something planted at the name.
    const int fd = ::mkostemps(tmpl.data(), 4, O_CLOEXEC);
    if (fd < 0) {
        return QString("%1: cannot create: %2").arg(path, reason(errno));
    }
    int error = writeSyncClose(fd, bytes, ::fchmod(fd, 0644) != 0 ? errno : 0);
    if (error == 0 && ::rename(tmpl.constData(), QFile::encodeName(path).constData()) != 0) {
        error = errno;
    }
    if (error != 0) {
        ::unlink(tmpl.constData());
        return QString("%1: cannot write: %2").arg(path, reason(error));
    }
    syncDirectoryOf(QFile::encodeName(path));
    return {};
}

QString appendTo(const QString& path, const QByteArray& bytes) {
    const int fd =
        ::open(QFile::encodeName(path).constData(),
               O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0644);
    if (fd < 0) {
        const int e = errno;
        return e == ELOOP ? linkRefused(path) : path + ": cannot open: " + reason(e);
    }
    struct stat st {};
    const int error = writeSyncClose(fd, bytes,
                                     ::fstat(fd, &st) != 0 ? errno
                                     : S_ISREG(st.st_mode) ? 0
                                                           : EINVAL);
    return error == 0 ? QString() : QString("%1: cannot write: %2").arg(path, reason(error));
}

QString makeDirs(const QString& dir, const QString& inside) {
    const QString target = QDir::cleanPath(QDir(dir).absolutePath());
    const QString root =
        inside.isEmpty() ? QString() : QDir::cleanPath(QDir(inside).absolutePath());
    QString sofar;
    for (const QString& part : target.split('/', Qt::SkipEmptyParts)) {
        sofar += '/' + part;
        const QByteArray name = QFile::encodeName(sofar);
        const bool checked = !root.isEmpty() && sofar.startsWith(root + '/');
        struct stat st {};
        if ((checked ? ::lstat(name.constData(), &st) : ::stat(name.constData(), &st)) == 0) {
            if (S_ISLNK(st.st_mode)) {
                return linkRefused(sofar);
            }
            if (!S_ISDIR(st.st_mode)) {
                return QString("cannot create %1: %2 is not a directory").arg(target, sofar);
            }
            continue;
        }
        if (::mkdir(name.constData(), 0755) != 0 && errno != EEXIST) {
            return QString("cannot create %1: %2").arg(sofar, reason(errno));
        }
        // Whatever is there now (ours, or a racing creator's) must be a real directory.
        if (::lstat(name.constData(), &st) != 0 || !S_ISDIR(st.st_mode)) {
            return QString("cannot create %1: it is not a directory").arg(sofar);
        }
    }
    return {};
}

QString linkRefused(const QString& path) {
    return path + ": " + kLinkRefused;
}

bool isLink(const QString& path) {
    struct stat st {};
    return ::lstat(QFile::encodeName(path).constData(), &st) == 0 && S_ISLNK(st.st_mode);
}

qint64 limitFromEnv(const char* name, qint64 fallback) {
    bool ok = false;
    const qint64 v = qEnvironmentVariable(name).toLongLong(&ok);
    return ok && v > 0 ? v : fallback;
}

} // namespace commprof::files
