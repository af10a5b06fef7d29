// SPDX-License-Identifier: GPL-3.0-or-later
#include "line_reader.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace commprof::files {
namespace {

constexpr qsizetype kChunk = 65536;

QString limitText(qint64 bytes, const QString& raise) {
    return QString("the limit of %1 bytes%2").arg(bytes).arg(raise.isEmpty() ? "" : "; " + raise);
}

} // namespace

LineReader::LineReader(const QString& path, const LineLimits& limits, Links links)
    : path_(path), limits_(limits) {
    fd_ = openRegularFile(path, links);
    struct stat st {};
    if (::fstat(fd_, &st) == 0 && st.st_size > limits_.maxFileBytes) {
        ::close(fd_);
        fd_ = -1;
        throw FileError(path, QString("%1 bytes, above %2")
                                  .arg(qint64(st.st_size))
                                  .arg(limitText(limits_.maxFileBytes, limits_.raiseFile)));
    }
}

LineReader::~LineReader() {
    if (fd_ >= 0) {
        ::close(fd_);
    }
}

bool LineReader::fill() {
    if (eof_) {
        return false;
    }
    buffer_.remove(0, pos_);
    pos_ = 0;
    const qsizetype had = buffer_.size();
    buffer_.resize(had + kChunk);
    ssize_t n = 0;
    do {
        n = ::read(fd_, buffer_.data() + had, std::size_t(kChunk));
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
        const int e = errno;
        buffer_.resize(had);
        throw FileError(path_, "cannot read: " + QString::fromLocal8Bit(std::strerror(e)));
    }
    buffer_.resize(had + n);
    total_ += n;
    if (total_ > limits_.maxFileBytes) { // a file that grows while it is read
        throw FileError(path_, "more than " + limitText(limits_.maxFileBytes, limits_.raiseFile));
    }
    eof_ = n == 0;
    return n > 0;
}

void LineReader::checkLength(qsizetype bytes) const {
    if (bytes > limits_.maxLineBytes) {
        throw FileError(path_, QString("line %1: longer than %2")
                                   .arg(lineNo_ + 1)
                                   .arg(limitText(limits_.maxLineBytes, limits_.raiseLine)));
    }
}

bool LineReader::next(QByteArray& line) {
    qsizetype from = pos_; // where the search for '\n' goes on
    for (;;) {
        const qsizetype nl = buffer_.indexOf('\n', from);
        if (nl >= 0) {
            checkLength(nl - pos_);
            line = buffer_.mid(pos_, nl - pos_);
            pos_ = nl + 1;
            ++lineNo_;
            return true;
        }
        // Checked before reading on, so the buffer never holds more than a line's limit.
        checkLength(buffer_.size() - pos_);
        const qsizetype unread = buffer_.size() - pos_;
        if (!fill()) {
            if (buffer_.size() == pos_) {
                return false;
            }
            line = buffer_.mid(pos_); // a last line without '\n'
            pos_ = buffer_.size();
            ++lineNo_;
            return true;
        }
        from = unread; // fill() moved the unread bytes to the front
    }
}

} // namespace commprof::files
