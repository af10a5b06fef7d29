// SPDX-License-Identifier: GPL-3.0-or-later
#include "fork_server.h"

#include "spec/fork_contract.h"
#include "spec/rank_contract.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFileInfo>

#include <csignal>
#include <sys/prctl.h>
#include <unistd.h>

namespace commprof::runner {
namespace {

namespace contract = spec::fork;

// A unix socket's path must fit sockaddr_un's 108 bytes.
constexpr int kMaxSocketPath = 100;

} // namespace

QString forkClientFor(const QString& rankProgram) {
    const QDir dir = QFileInfo(rankProgram).absoluteDir();
    for (const QString& candidate :
         {dir.filePath(contract::kClientProgram),
          dir.filePath(QString("../libexec/commprof/") + contract::kClientProgram)}) {
        if (QFileInfo(candidate).isExecutable()) {
            return QDir::cleanPath(candidate);
        }
    }
    return {};
}

ForkServer::~ForkServer() {
    if (process_ && process_->state() != QProcess::NotRunning) {
        process_->closeWriteChannel(); // the server ends when its stdin does
        if (!process_->waitForFinished(2000)) {
            process_->kill();
            process_->waitForFinished(1000);
        }
    }
}

bool ForkServer::refuse(const QString& why) {
    reason_ = why;
    serving_ = false;
    if (process_ && process_->state() != QProcess::NotRunning) {
        process_->kill();
        process_->waitForFinished(1000);
    }
    return false;
}

bool ForkServer::start(const QString& rankProgram, const QProcessEnvironment& env, int timeoutMs) {
    if (env.value(contract::kEnableEnv) == "0") {
        return refuse(QString("the fork server is off (%1=0)").arg(contract::kEnableEnv));
    }
    client_ = forkClientFor(rankProgram);
    if (client_.isEmpty()) {
        return refuse(QString("no %1 beside %2").arg(contract::kClientProgram, rankProgram));
    }
    dir_ = std::make_unique<QTemporaryDir>(QDir::temp().filePath("commprof-fork-XXXXXX"));
    socket_ = dir_->filePath("ranks.sock");
    if (!dir_->isValid() || socket_.size() > kMaxSocketPath) {
        return refuse(QString("no private folder for its socket under %1").arg(QDir::tempPath()));
    }
    process_ = std::make_unique<QProcess>();
    process_->setProcessEnvironment(env);
    process_->setWorkingDirectory(dir_->path());
    process_->setProcessChannelMode(QProcess::ForwardedErrorChannel);
    // The server, and through it every rank it forked, dies with the thread that started it.
    process_->setChildProcessModifier([parent = ::getpid()] {
        if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent) {
            ::_exit(spec::exit_code::kCannotRun);
        }
    });
    process_->start(rankProgram, {contract::kServerFlag, socket_});
    const QDeadlineTimer deadline(timeoutMs);
    while (!process_->canReadLine()) {
        if (process_->state() == QProcess::NotRunning ||
            !process_->waitForReadyRead(int(qMax<qint64>(1, deadline.remainingTime()))) ||
            deadline.hasExpired()) {
            if (process_->canReadLine()) {
                break;
            }
            return refuse(
                process_->state() == QProcess::NotRunning
                    ? QString("%1 %2 did not start or ended: %3")
                          .arg(rankProgram, contract::kServerFlag, process_->errorString())
                    : QString("%1 %2 did not answer within %3 s")
                          .arg(rankProgram, contract::kServerFlag)
                          .arg(timeoutMs / 1000));
        }
    }
    const QString line = QString::fromUtf8(process_->readLine()).trimmed();
    if (line != contract::kReady) {
        return refuse(line.startsWith(contract::kRefused)
                          ? line.mid(int(qstrlen(contract::kRefused)))
                          : QString("%1 %2 answered '%3'")
                                .arg(rankProgram, contract::kServerFlag, line.left(200)));
    }
    serving_ = true;
    reason_.clear();
    return true;
}

QStringList ForkServer::arguments(const QString& rankProgram, const QStringList& args) const {
    return QStringList{socket_, rankProgram} + args;
}

} // namespace commprof::runner
