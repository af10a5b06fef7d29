#include "results_folder.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>

namespace commprof::results {
namespace {

bool looksLikeCell(const QDir& cell) {
    return cell.exists("cell.json") || cell.exists("manifest.json") ||
           !cell.entryList({"rank*.json"}, QDir::Files).isEmpty();
}

} // namespace

FolderCheck checkResultsFolder(const QString& dir) {
    const QFileInfo info(dir);
    if (!info.exists()) {
        return {false, QString("%1 does not exist").arg(dir)};
    }
    if (!info.isDir()) {
        return {false, QString("%1 is a file, not a results folder").arg(dir)};
    }
    const QDir root(dir);
    if (root.exists("run.json")) {
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

RunMatrix matrixOfRun(const QString& dir) {
    QFile f(QDir(dir).filePath("run.json"));
    if (!f.open(QIODevice::ReadOnly)) {
        return {};
    }
    const QJsonObject run = QJsonDocument::fromJson(f.readAll()).object();
    return {run["matrix_yaml"].toString(), run["file"].toString()};
}

} // namespace commprof::results
