// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A file another process is still writing (Slurm's slurm-<job>.out), read as it grows: each
// read returns what was added since the last one, at most a bounded chunk. A link is never
// followed, and only a regular file is read: a FIFO or device planted at the name cannot block
// the event loop.

#include <QByteArray>
#include <QString>

namespace commprof::runner {

class FollowedFile {
public:
    explicit FollowedFile(qint64 maxChunk = 1024LL * 1024) : maxChunk_(maxChunk) {}
    // What PATH gained since the last call; empty when nothing did, or it is not there yet.
    QByteArray readMore(const QString& path);

private:
    qint64 maxChunk_;
    qint64 offset_ = 0;
};

} // namespace commprof::runner
