// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Reads a file line by line with a bound on the file and on each line, enforced while reading:
// a file without a newline costs at most the line limit, never its whole size. Only regular
// files are opened, as readRegularFile does.

#include "files/safe_file.h"

#include <QByteArray>
#include <QString>

namespace commprof::files {

struct LineLimits {
    qint64 maxFileBytes = 0;
    qint64 maxLineBytes = 0;
    QString raiseFile; // how to lift each limit, for the message
    QString raiseLine;
};

class LineReader {
public:
    // Throws FileError naming PATH: not a regular file, a refused link, larger than the limit.
    LineReader(const QString& path, const LineLimits& limits, Links links);
    ~LineReader();
    LineReader(const LineReader&) = delete;
    LineReader& operator=(const LineReader&) = delete;

    // The next line without its '\n' into LINE; false at the end. Throws FileError naming the
    // path and line when a line or the file outgrows its limit, or a read fails.
    bool next(QByteArray& line);
    int lineNumber() const { return lineNo_; } // of the line last returned, from 1

private:
    bool fill();
    void checkLength(qsizetype bytes) const;

    QString path_;
    LineLimits limits_;
    int fd_ = -1;
    QByteArray buffer_;
    qsizetype pos_ = 0;
    qint64 total_ = 0;
    bool eof_ = false;
    int lineNo_ = 0;
};

} // namespace commprof::files
