// SPDX-License-Identifier: GPL-3.0-or-later
#include "followed_file.h"

#include <QFile>

#include <algorithm>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace commprof::runner {

QByteArray FollowedFile::readMore(const QString& path) {
    const int fd =
        ::open(QFile::encodeName(path).constData(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        return {};
    }
    QByteArray chunk;
    struct stat st {};
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > offset_) {
        chunk.resize(qsizetype(std::min<qint64>(st.st_size - offset_, maxChunk_)));
        const ssize_t n = ::pread(fd, chunk.data(), std::size_t(chunk.size()), offset_);
        chunk.resize(n > 0 ? qsizetype(n) : 0);
        offset_ += chunk.size();
    }
    ::close(fd);
    return chunk;
}

} // namespace commprof::runner
