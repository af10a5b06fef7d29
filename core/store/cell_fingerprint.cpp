// SPDX-License-Identifier: GPL-3.0-or-later
#include "cell_fingerprint.h"

#include "files/safe_file.h"
#include "results/rank_file.h"
#include "spec/rank_contract.h"
#include "store/schema.h"
#include "trace/trace_input.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>

#include <sys/stat.h>

#include <cstdlib>

namespace commprof::store {
namespace {

// Raised when ingest derives something else from files that have not changed (a new figure
// computed from the same rank files), so that every cell is read again once.
constexpr int kIngestRevision = 4;

// The records are a few kilobytes; a larger one is hashed by its listing alone, and reading it
// is the reader's to refuse.
constexpr qint64 kMaxHashedRecordBytes = 16LL * 1024 * 1024;

void addEntry(QCryptographicHash& h, const QString& path, const QString& name) {
    struct stat st {};
    if (::lstat(QFile::encodeName(path).constData(), &st) != 0) {
        h.addData(QString("%1 gone\n").arg(name).toUtf8());
        return;
    }
    h.addData(QString("%1 %2 %3 %4.%5\n")
                  .arg(name)
                  .arg(st.st_mode & S_IFMT)
                  .arg(qint64(st.st_size))
                  .arg(qint64(st.st_mtim.tv_sec))
                  .arg(qint64(st.st_mtim.tv_nsec))
                  .toUtf8());
}

void addContent(QCryptographicHash& h, const QString& path) {
    try {
        h.addData(files::readRegularFile(path, kMaxHashedRecordBytes, files::Links::Refuse));
    } catch (const files::FileError& e) {
        h.addData(e.detail.toUtf8());
    }
    h.addData(QByteArray("\n"));
}

} // namespace

QString cellFingerprint(const QString& cellDir) {
    QCryptographicHash h(QCryptographicHash::Sha256);
    const char* traceLimit = std::getenv(trace::kMaxTraceSizeEnv);
    h.addData(QString("schema %1 ingest %2 rank files %3 traces %4\n")
                  .arg(kSchemaVersion)
                  .arg(kIngestRevision)
                  .arg(results::maxRankFileBytes())
                  .arg(traceLimit ? traceLimit : "")
                  .toUtf8());
    addEntry(h, cellDir, ".");
    const QDir d(cellDir);
    for (const QString& name : d.entryList(
             QDir::AllEntries | QDir::System | QDir::Hidden | QDir::NoDotAndDotDot, QDir::Name)) {
        addEntry(h, d.filePath(name), name);
    }
    for (const char* record : {spec::files::kCellRecord, spec::files::kManifest}) {
        addContent(h, d.filePath(record));
    }
    return QString::fromLatin1(h.result().toHex());
}

} // namespace commprof::store
