// SPDX-License-Identifier: GPL-3.0-or-later
#include "results_folder.h"

#include "cell_files.h"
#include "files/safe_file.h"
#include "spec/rank_contract.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonObject>

namespace commprof::results {
namespace {

const QStringList& folderEntries() {
    static const QStringList entries{".lock",
                                     spec::files::kPidDir,
                                     ".aside",
                                     "cells",
                                     spec::files::kRunRecord,
                                     "results.sqlite",
                                     "results.sqlite-wal",
                                     "results.sqlite-shm",
                                     "results.sqlite-journal"};
    return entries;
}

bool looksLikeCell(const QDir& cell) {
    return cell.exists(spec::files::kCellRecord) || cell.exists(spec::files::kManifest) ||
           !cell.entryList({QString::fromStdString(spec::files::kRankResult.glob())}, QDir::Files)
                .isEmpty();
}

} // namespace

QString cellDir(const QString& resultsDir, const QString& cellId) {
    return QDir(QDir(resultsDir).filePath("cells")).filePath(cellId);
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

FolderCheck checkResultsFolder(const QString& dir) {
    const QFileInfo info(dir);
    if (!info.exists()) {
        return {false, QString("%1 does not exist").arg(dir)};
    }
    if (!info.isDir()) {
        return {false, QString("%1 is a file, not a results folder").arg(dir)};
    }
    const QDir root(dir);
    if (root.exists(spec::files::kRunRecord)) {
        return {true, {}};
    }
    const QDir cells(root.filePath("cells"));
    if (cells.exists()) {
        for (const QString& name : cells.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
            if (looksLikeCell(QDir(cells.filePath(name)))) {
                return {true, {}};
            }
        }
    }
    return {false, QString("%1 is not a results folder: it has no run.json and no cells/ "
                           "folder of cells (what `commprof run --out` writes)")
                       .arg(QDir::toNativeSeparators(info.absoluteFilePath()))};
}

QString foreignFolder(const QString& dir) {
    const QFileInfo info(dir);
    if (!info.isDir() || checkResultsFolder(dir).ok) {
        return {};
    }
    const QStringList entries =
        QDir(dir).entryList(QDir::AllEntries | QDir::System | QDir::Hidden | QDir::NoDotAndDotDot);
    for (const QString& entry : entries) {
        if (!folderEntries().contains(entry)) {
            return QString("%1 already holds other files (%2) and is not a results folder; "
                           "choose an empty folder or a results folder to continue")
                .arg(QDir::toNativeSeparators(info.absoluteFilePath()), entry);
        }
    }
    return {}; // what a run that was refused early left: its own entries only
}

RunMatrix matrixOfRun(const QString& dir) {
    // A run.json that is missing, a link, too large or not JSON is not what a run wrote: it
    // reads as empty, and the designer simply keeps its matrix.
    const QJsonObject run = readRecord(QDir(dir).filePath(spec::files::kRunRecord));
    return {run["matrix_yaml"].toString(), run["file"].toString()};
}

} // namespace commprof::results
