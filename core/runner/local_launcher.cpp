// SPDX-License-Identifier: GPL-3.0-or-later
#include "local_launcher.h"

#include "runner/slurm_launcher.h"
#include "spec/rank_contract.h"

#include <QDir>

namespace commprof::runner {

LocalLauncher::LocalLauncher(QObject* parent) : CellLauncher(parent), pool_(new RankPool(this)) {
    connect(pool_, &RankPool::progress, this, &CellLauncher::progress);
    connect(pool_, &RankPool::logLine, this, &CellLauncher::logLine);
    connect(pool_, &RankPool::finished, this, [this](const PoolOutcome& o) {
        PoolOutcome out = o;
        out.launcher = QJsonObject{{"kind", "local"}, {"port", o.port}};
        emit finished(out);
    });
}

void LocalLauncher::start(const CellLaunch& launch) {
    PoolSpec spec;
    spec.program = launch.program;
    spec.args = launch.args;
    spec.worldSize = launch.worldSize;
    spec.workDir = launch.workDir;
    spec.pidDir = pidDirOf(launch.resultsDir);
    spec.pidTag = launch.cellId + "_";
    spec.runId = launch.runId;
    spec.graceMs = launch.graceMs;
    spec.deadline = launch.deadline;
    spec.env = launch.env;
    pool_->start(spec);
}

void LocalLauncher::stop() {
    pool_->stop();
}

QString pidDirOf(const QString& resultsDir) {
    return QDir(resultsDir).filePath(spec::files::kPidDir);
}

QString jobDirOf(const QString& resultsDir) {
    return QDir(resultsDir).filePath(".jobs");
}

CellLauncher* makeLauncher(matrix::LauncherKind kind, QObject* parent) {
    if (kind == matrix::LauncherKind::Slurm) {
        return new SlurmLauncher(parent);
    }
    return new LocalLauncher(parent);
}

} // namespace commprof::runner
