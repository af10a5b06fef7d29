// SPDX-License-Identifier: GPL-3.0-or-later
#include "open_results.h"

#include <QFile>
#include <QFileInfo>

#include <unistd.h>

namespace commprof::store {
namespace {

// access(2), not the permission bits: a read-only mount refuses even root.
bool writable(const QString& path) {
    return ::access(QFile::encodeName(path).constData(), W_OK) == 0;
}

// SQLite writes the database and, beside it, its -wal and -shm.
bool canWrite(const QString& dbPath) {
    const QFileInfo db(dbPath);
    return writable(db.absolutePath()) && (!db.exists() || writable(db.absoluteFilePath()));
}

} // namespace

OpenedResults openResults(const QString& resultsDir, const QString& dbPath,
                          const std::function<void(int, int, const QString&)>& progress) {
    requireResultsFolder(resultsDir);
    OpenedResults out;
    if (canWrite(dbPath)) {
        out.db = std::make_unique<Database>(dbPath);
        out.ingested = ingest(resultsDir, *out.db, progress);
        return out;
    }
    if (QFileInfo(dbPath).isFile()) {
        auto onDisk = std::make_unique<Database>(dbPath, OpenMode::ReadOnly);
        if (isCurrent(resultsDir, *onDisk)) {
            out.db = std::move(onDisk);
            return out;
        }
        out.db = std::make_unique<Database>(dbPath, OpenMode::Memory);
        out.db->copyFrom(*onDisk);
        out.note = dbPath + " cannot be written and is older than the files: brought up to date in "
                            "memory, not saved (run `commprof ingest` where it can be written)";
    } else {
        out.db = std::make_unique<Database>(dbPath, OpenMode::Memory);
        out.note = dbPath + " cannot be written: the results were read into memory, not saved";
    }
    out.ingested = ingest(resultsDir, *out.db, progress);
    return out;
}

} // namespace commprof::store
