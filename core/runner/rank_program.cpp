#include "rank_program.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

namespace commprof::runner {

QString defaultRankProgram() {
    const QByteArray env = qgetenv("COMMPROF_RANK");
    if (!env.isEmpty()) {
        return QString(env);
    }
    const QString beside = QDir(QCoreApplication::applicationDirPath()).filePath("commprof-rank");
    if (QFileInfo(beside).isExecutable()) {
        return beside;
    }
    const QString onPath = QStandardPaths::findExecutable("commprof-rank");
    // Missing everywhere: the path beside is what the error message names.
    return onPath.isEmpty() ? beside : onPath;
}

} // namespace commprof::runner
