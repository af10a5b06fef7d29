#include "results_folder.h"

#include "files/safe_file.h"

#include <QDir>

namespace commprof::results {

const QStringList& folderEntries() {
    static const QStringList entries{".lock",
                                     ".pids",
                                     ".aside",
                                     "cells",
                                     "run.json",
                                     "results.sqlite",
                                     "results.sqlite-wal",
                                     "results.sqlite-shm",
                                     "results.sqlite-journal"};
    return entries;
}

QString linkInFolder(const QString& dir) {
    const QDir d(dir);
    for (const QString& entry : folderEntries()) {
        if (files::isLink(d.filePath(entry))) {
            return files::linkRefused(d.filePath(entry));
        }
    }
    const QDir cells(d.filePath("cells"));
    for (const QString& entry :
         cells.entryList(QDir::AllEntries | QDir::System | QDir::Hidden | QDir::NoDotAndDotDot)) {
        if (files::isLink(cells.filePath(entry))) {
            return files::linkRefused(cells.filePath(entry));
        }
    }
    return {};
}

} // namespace commprof::results
