// SPDX-License-Identifier: GPL-3.0-or-later
#include "user_namespace_hosts.h"

#include "platform/link_emulation.h"
#include "platform/thread_limit.h"
#include "platform/user_namespace.h"
#include "runner/process_identity.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QStandardPaths>

#include <cerrno>
#include <csignal>
#include <cstring>

#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>

namespace commprof::runner {
namespace {

constexpr int kStartTimeoutMs = 10000;
constexpr int kStopTimeoutMs = 3000;
// Says it is ready once its namespaces are made (the child modifier made them before exec),
// then waits for the end of its stdin: the runner's end of that pipe closes when the runner
// stops it or dies.
const QStringList kKeeperScript{"-c", "echo ready && exec cat >/dev/null"};

int openNamespace(qint64 pid, const char* kind) {
    return ::open(QString("/proc/%1/ns/%2").arg(pid).arg(kind).toLocal8Bit().constData(),
                  O_RDONLY | O_CLOEXEC);
}

void closeFd(int& fd) {
    if (fd >= 0) {
        ::close(fd);
    }
    fd = -1;
}

// The kernel's name of a process' namespace ("user:[4026531837]"), or empty.
QByteArray namespaceId(const QString& process, const char* kind) {
    char target[128];
    const QByteArray link = QString("/proc/%1/ns/%2").arg(process, kind).toLocal8Bit();
    const ssize_t n = ::readlink(link.constData(), target, sizeof target);
    return n > 0 ? QByteArray(target, int(n)) : QByteArray();
}

} // namespace

QString runNetworkTool(const QString& tool, const QStringList& args,
                       const std::function<void()>& enter) {
    constexpr int kToolTimeoutMs = 15000;
    QProcess p;
    p.setStandardInputFile(QProcess::nullDevice());
    if (enter) {
        p.setChildProcessModifier(enter);
    }
    p.start(platform::networkToolPath(tool), args);
    if (!p.waitForFinished(kToolTimeoutMs)) {
        p.kill();
        p.waitForFinished(1000);
        return QString("%1 %2 did not finish: %3").arg(tool, args.join(' '), p.errorString());
    }
    if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        const QByteArray err = p.readAllStandardError();
        const QString setup = platform::namespaceSetupFailure(err);
        return QString("%1 %2: %3")
            .arg(tool, args.join(' '),
                 setup.isEmpty() ? QString(err).trimmed()
                                 : "cannot enter the namespaces: " + setup);
    }
    return {};
}

NamespaceKeeper::~NamespaceKeeper() {
    stop();
}

QString NamespaceKeeper::start() {
    stop();
    const platform::OwnNamespaceMaps maps = platform::ownNamespaceMaps();
    const QString shell = QStandardPaths::findExecutable("sh");
    proc_ = std::make_unique<QProcess>();
    proc_->setWorkingDirectory("/"); // holds nothing of the runner's folders busy
    // Death signal after the namespaces: set before, it could be lost as the credentials
    // change. The parent check catches a runner that died before it was set.
    proc_->setChildProcessModifier([maps, parent = ::getpid()] {
        platform::enterOwnNamespacesOrExit(maps);
        if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent) {
            ::_exit(platform::kNamespaceSetupExit);
        }
    });
    proc_->start(shell.isEmpty() ? QString("/bin/sh") : shell, kKeeperScript);
    QByteArray said;
    QElapsedTimer clock;
    clock.start();
    while (!said.contains("ready\n") && clock.elapsed() < kStartTimeoutMs &&
           proc_->state() != QProcess::NotRunning) {
        proc_->waitForReadyRead(100);
        said += proc_->readAllStandardOutput();
    }
    if (!said.contains("ready\n")) {
        const QByteArray err = proc_->readAllStandardError();
        QString why = platform::namespaceSetupFailure(err);
        if (why.isEmpty()) {
            why = proc_->state() == QProcess::NotRunning
                      ? QString(err).trimmed() + " " + proc_->errorString()
                      : QString("it did not say it was ready in %1 s").arg(kStartTimeoutMs / 1000);
        }
        stop();
        return "cannot make a user namespace for the emulated hosts: " + why.trimmed();
    }
    pid_ = proc_->processId();
    startTime_ = processStartTime(pid_);
    userFd_ = openNamespace(pid_, "user");
    mountFd_ = openNamespace(pid_, "mnt");
    netFd_ = openNamespace(pid_, "net");
    if (userFd_ < 0 || mountFd_ < 0 || netFd_ < 0 || startTime_ == 0) {
        const QString why = QString("cannot open the namespaces of process %1: %2")
                                .arg(pid_)
                                .arg(QString::fromLocal8Bit(std::strerror(errno)));
        stop();
        return why;
    }
    return {};
}

void NamespaceKeeper::stop() {
    closeFd(userFd_);
    closeFd(mountFd_);
    closeFd(netFd_);
    if (proc_ && proc_->state() != QProcess::NotRunning) {
        proc_->closeWriteChannel(); // its cat reads the end of file and exits
        if (!proc_->waitForFinished(kStopTimeoutMs)) {
            proc_->kill();
            proc_->waitForFinished(kStopTimeoutMs);
        }
    }
    proc_.reset();
    pid_ = 0;
    startTime_ = 0;
}

QString NamespaceKeeper::run(const QString& tool, const QStringList& args) const {
    if (userFd_ < 0) {
        return QString("%1 %2: the namespace keeper is not running").arg(tool, args.join(' '));
    }
    return runNetworkTool(tool, args, [user = userFd_, mount = mountFd_, net = netFd_] {
        platform::joinNamespacesOrExit(user, mount, net);
    });
}

QString NamespaceKeeper::userNamespacePath() const {
    return QString("/proc/%1/ns/user").arg(pid_);
}

QString NamespaceKeeper::networkNamespacePath(const QString& name) const {
    return QString("/proc/%1/root/run/netns/%2").arg(pid_).arg(name);
}

bool NamespaceKeeper::endLeftover(qint64 pid, quint64 startTime) {
    const PidRecord keeper{pid, startTime, {}, {}};
    quint64 uid = 0;
    quint64 threads = 0;
    if (pid <= 1 || startTime == 0 || !stillRunning(keeper) ||
        !platform::processStatus(QString("/proc/%1/status").arg(pid), uid, threads) ||
        uid != ::getuid()) {
        return false;
    }
    // A keeper is in a user namespace of its own; a process in this one is someone else.
    const QByteArray mine = namespaceId("self", "user");
    const QByteArray its = namespaceId(QString::number(pid), "user");
    return !its.isEmpty() && its != mine && ::kill(pid_t(pid), SIGKILL) == 0;
}

} // namespace commprof::runner
