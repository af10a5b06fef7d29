#include "rank_program.h"

#include <QCoreApplication>
#include <QDir>

namespace commprof::runner {

QString defaultRankProgram() {
    const QByteArray env = qgetenv("COMMPROF_RANK");
    return env.isEmpty() ? QDir(QCoreApplication::applicationDirPath()).filePath("commprof-rank")
                         : QString(env);
}

} // namespace commprof::runner
