// SPDX-License-Identifier: GPL-3.0-or-later
#include "local_launcher.h"

#include "matrix/links.h"
#include "runner/slurm_launcher.h"
#include "spec/rank_contract.h"

#include <QDir>
#include <QTimer>

#include <algorithm>

namespace commprof::runner {

LocalLauncher::LocalLauncher(QObject* parent) : CellLauncher(parent), pool_(new RankPool(this)) {
    connect(pool_, &RankPool::progress, this, &CellLauncher::progress);
    connect(pool_, &RankPool::logLine, this, &CellLauncher::logLine);
    connect(pool_, &RankPool::finished, this, [this](const PoolOutcome& o) {
        PoolOutcome out = o;
        out.launcher = QJsonObject{{"kind", "local"}, {"port", o.port}};
        if (!link_.isEmpty()) {
            out.launcher["link"] = link_;
        }
        hosts_.reset(); // the ranks have ended: nothing holds the namespaces any more
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
    if (const QString error = placeRanks(launch, spec); !error.isEmpty()) {
        const PoolOutcome o = notStarted(launch.worldSize, error + "; no rank was started");
        emit logLine(o.reason);
        // Never from inside start(): a caller connects to finished() after start() returns.
        QTimer::singleShot(0, this, [this, o] { emit finished(o); });
        return;
    }
    pool_->start(spec);
}

QString LocalLauncher::placeRanks(const CellLaunch& launch, PoolSpec& spec) {
    hosts_.reset();
    link_ = {};
    if (launch.link == matrix::kLoopback) {
        return {};
    }
    const int perHost = std::max(1, launch.ranksPerHost);
    const int hosts = launch.worldSize / perHost;
    if (hosts * perHost != launch.worldSize || hosts < 2) {
        return QString("world size %1 in hosts of %2 rank(s) is not 2 or more whole hosts")
            .arg(launch.worldSize)
            .arg(perHost);
    }
    hosts_ = std::make_unique<EmulatedHosts>();
    if (const QString error = hosts_->build(launch.runId, launch.link, hosts); !error.isEmpty()) {
        hosts_.reset();
        return error;
    }
    for (int r = 0; r < launch.worldSize; ++r) {
        const int host = r / perHost;
        spec.places.push_back({EmulatedHosts::addressOf(host), hosts_->networkNamespacePath(host),
                               hosts_->userNamespacePath()});
    }
    link_ = QJsonObject{{"rate", launch.link}, {"hosts", hosts}, {"ranks_per_host", perHost}};
    emit logLine(QString("%1 emulated hosts of %2 rank(s) joined at %3")
                     .arg(hosts)
                     .arg(perHost)
                     .arg(launch.link));
    return {};
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
