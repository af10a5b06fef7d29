// SPDX-License-Identifier: GPL-3.0-or-later
#include "rank_pool.h"

#include "process_identity.h"
#include "spec/fork_contract.h"
#include "spec/rank_contract.h"

#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QTimer>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstring>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

namespace commprof::runner {

constexpr int kCannotRunExit = spec::exit_code::kCannotRun;

RankPool::RankPool(QObject* parent) : QObject(parent) {
    qRegisterMetaType<commprof::runner::PoolOutcome>();
}

RankPool::~RankPool() {
    for (auto& p : procs_) {
        if (p && p->state() != QProcess::NotRunning) {
            p->kill();
            p->waitForFinished(1000);
        }
    }
    removePidFiles();
}

int RankPool::freeLoopbackPort(QString* error, int wanted) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        if (error) {
            *error = QString("cannot open a socket: %1").arg(std::strerror(errno));
        }
        return 0;
    }
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(quint16(wanted));
    socklen_t len = sizeof addr;
    int port = 0;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
        port = ntohs(addr.sin_port);
    } else if (error) {
        *error = QString("cannot bind 127.0.0.1 to any port: %1").arg(std::strerror(errno));
    }
    ::close(fd);
    return port;
}

void RankPool::failWithoutPort(const QString& why) {
    procs_.clear(); // a port-clash retry's earlier attempt, long finished
    PoolOutcome none = notStarted(
        spec_.worldSize,
        QString("no free loopback port for the rendezvous (%1); no rank was started").arg(why));
    outcome_.ranks = std::move(none.ranks);
    outcome_.reason = none.reason;
    emit logLine(outcome_.reason);
    // Never from inside start(): a caller connects to finished() after start() returns.
    QTimer::singleShot(0, this, [this] {
        if (deadlineTimer_) {
            deadlineTimer_->stop();
        }
        emit finished(outcome_);
    });
}

void RankPool::start(const PoolSpec& spec) {
    spec_ = spec;
    if (spec_.runId.isEmpty()) {
        spec_.runId = randomToken();
    }
    outcome_ = PoolOutcome{};
    if (!spec_.pidDir.isEmpty()) {
        QDir().mkpath(spec_.pidDir);
    }
    QDir().mkpath(spec_.workDir);
    deadlineTimer_ = new QTimer(this);
    deadlineTimer_->setSingleShot(true);
    connect(deadlineTimer_, &QTimer::timeout, this, [this] {
        outcome_.timedOut = true;
        terminateAll("the cell's deadline passed");
    });
    const qint64 left = spec_.deadline.remainingTime(); // -1: forever
    deadlineTimer_->start(int(left < 0 ? INT_MAX : std::min<qint64>(left, INT_MAX)));
    launchAttempt();
}

void RankPool::launchAttempt() {
    ++outcome_.attempts;
    QString noPort;
    outcome_.port = (outcome_.attempts == 1 && spec_.firstPort > 0) ? spec_.firstPort
                                                                    : freeLoopbackPort(&noPort);
    if (outcome_.port <= 0) {
        failWithoutPort(noPort); // MASTER_PORT=0 would only fail in each rank, less clearly
        return;
    }
    outcome_.ranks.assign(std::size_t(spec_.worldSize), RankExit{});
    procs_.clear();
    stderr_.assign(std::size_t(spec_.worldSize), {});
    stdout_.assign(std::size_t(spec_.worldSize), {});
    terminating_ = false;
    alive_ = spec_.worldSize;
    // A fresh secret for every rendezvous: rank 0's store serves only clients that present it.
    const QString storeToken = randomToken();
    const QString master = spec_.places.empty() ? "127.0.0.1" : spec_.places.front().address;
    emit logLine(QString("launching %1 rank(s) on %4:%2 (attempt %3)")
                     .arg(spec_.worldSize)
                     .arg(outcome_.port)
                     .arg(outcome_.attempts)
                     .arg(master));
    launching_ = true;
    int started = 0;
    for (int r = 0; r < spec_.worldSize; ++r) {
        if (!startRank(r, master, storeToken)) {
            break;
        }
        ++started;
    }
    launching_ = false;
    if (started < spec_.worldSize) {
        onFailedToStart(started);
    }
}

bool RankPool::startRank(int r, const QString& master, const QString& storeToken) {
    outcome_.ranks[std::size_t(r)].rank = r;
    // Held before it starts: a failure to start is reported while start() still runs.
    procs_.push_back(std::make_unique<QProcess>());
    QProcess* raw = procs_.back().get();
    QProcessEnvironment env = spec_.env;
    env.insert("RANK", QString::number(r));
    env.insert("LOCAL_RANK", QString::number(r));
    env.insert("WORLD_SIZE", QString::number(spec_.worldSize));
    env.insert("MASTER_ADDR", master);
    env.insert("MASTER_PORT", QString::number(outcome_.port));
    env.insert("COMMPROF_STORE_TOKEN", storeToken);
    env.insert("COMMPROF_RUN_ID", spec_.runId);
    // On an emulated host the rank enters its namespaces before exec (-1: stays here).
    const HostFds host = openHostOf(r, env);
    raw->setProcessEnvironment(env);
    raw->setWorkingDirectory(spec_.workDir);
    confine(raw, r, host);
    watch(raw, r);
    raw->start(spec_.program, spec_.args);
    const bool up = raw->waitForStarted(10000);
    for (const int fd : {host.net, host.user}) {
        if (fd >= 0) {
            ::close(fd);
        }
    }
    const QString error = up && !spec_.pidDir.isEmpty()
                              ? writePidRecord(pidFile(r), raw->processId(), spec_.runId)
                              : QString();
    if (!error.isEmpty()) {
        emit logLine("cannot record the rank's pid: " + error);
    }
    return up;
}

void RankPool::confine(QProcess* raw, int r, const HostFds& host) const {
    // A rank dies with the thread that started it, even when that is killed with SIGKILL
    // and nothing is left to end it. Set after the namespaces (a change of user namespace
    // changes the credentials) and checked after it is set: the runner may have died
    // before, and the rank would then already belong to another parent. A normal user's
    // host is entered through the keeper's user namespace, as its root; files the rank
    // writes are still the user's.
    const bool placed = !spec_.places.empty();
    const bool joinUser = placed && !spec_.places.at(std::size_t(r)).userns.isEmpty();
    raw->setChildProcessModifier([parent = ::getpid(), host, placed, joinUser] {
        if ((joinUser && ::setns(host.user, CLONE_NEWUSER) != 0) ||
            (placed && ::setns(host.net, CLONE_NEWNET) != 0)) {
            static const char kWhy[] = "cannot enter the emulated host's namespaces\n";
            [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, kWhy, sizeof kWhy - 1);
            ::_exit(kCannotRunExit);
        }
        if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent) {
            ::_exit(kCannotRunExit);
        }
    });
}

void RankPool::watch(QProcess* raw, int r) {
    connect(raw, &QProcess::readyReadStandardOutput, this, [this, raw, r] {
        stdout_[std::size_t(r)].feed(raw->readAllStandardOutput(),
                                     [this, r](const QByteArray& line) {
                                         const QJsonObject event = progressEvent(line, r);
                                         if (!event.isEmpty()) {
                                             emit progress(r, event);
                                         }
                                     });
    });
    connect(raw, &QProcess::readyReadStandardError, this,
            [this, raw, r] { stderr_[std::size_t(r)].append(raw->readAllStandardError()); });
    connect(raw, &QProcess::finished, this,
            [this, r](int code, QProcess::ExitStatus status) { onRankFinished(r, code, status); });
    connect(raw, &QProcess::errorOccurred, this, [this, raw, r](QProcess::ProcessError error) {
        if (error != QProcess::FailedToStart) {
            return;
        }
        stderr_[std::size_t(r)].append(QString("failed to start %1 in %2: %3")
                                           .arg(spec_.program, spec_.workDir, raw->errorString())
                                           .toUtf8());
        if (!launching_) {
            onRankFinished(r, kCannotRunExit, QProcess::NormalExit);
        } // else launchAttempt settles it once its loop is done
    });
}

RankPool::HostFds RankPool::openHostOf(int rank, QProcessEnvironment& env) const {
    HostFds fds;
    if (spec_.places.empty()) {
        return fds;
    }
    const RankPlace& place = spec_.places.at(std::size_t(rank));
    env.insert("COMMPROF_BIND_ADDR", place.address);
    // Failing to open one fails the rank's start: setns(-1) refuses in the child.
    const auto open = [](const QString& path) {
        return ::open(QFile::encodeName(path).constData(), O_RDONLY | O_CLOEXEC);
    };
    fds.net = open(place.netnsPath);
    if (!place.userns.isEmpty()) {
        fds.user = open(place.userns);
    }
    return fds;
}

// Rank `started` could not be started; the ranks after it were never tried.
void RankPool::onFailedToStart(int started) {
    for (int r = started; r < spec_.worldSize; ++r) {
        RankExit& ex = outcome_.ranks[std::size_t(r)];
        ex.exitCode = kCannotRunExit;
        ex.stderrTail = r == started ? stderr_[std::size_t(r)].text()
                                     : QString("not started: rank %1 failed to start").arg(started);
    }
    alive_ -= spec_.worldSize - started;
    terminateAll(QString("rank %1 failed to start: %2")
                     .arg(started)
                     .arg(stderr_[std::size_t(started)].text()));
    // Never from inside start(): a caller connects to finished() after start() returns.
    QTimer::singleShot(0, this, &RankPool::finishIfDone);
}

qint64 RankPool::pid(int rank) const {
    return rank >= 0 && std::size_t(rank) < procs_.size() && procs_[std::size_t(rank)]
               ? procs_[std::size_t(rank)]->processId()
               : 0;
}

QString RankPool::pidFile(int rank) const {
    return QDir(spec_.pidDir)
        .filePath(spec_.pidTag + QString::fromStdString(spec::files::kPidFile.of(rank)));
}

void RankPool::removePidFiles() {
    if (spec_.pidDir.isEmpty()) {
        return;
    }
    for (int r = 0; r < spec_.worldSize; ++r) {
        QFile::remove(pidFile(r));
    }
}

void RankPool::onRankFinished(int rank, int exitCode, QProcess::ExitStatus status) {
    RankExit& ex = outcome_.ranks[std::size_t(rank)];
    if (ex.exitCode != -1 || ex.crashed) {
        return; // already recorded (FailedToStart and finished can both arrive)
    }
    ex.rank = rank;
    ex.crashed = status == QProcess::CrashExit;
    ex.exitCode = ex.crashed ? -1 : exitCode;
    if (QProcess* proc = procs_[std::size_t(rank)].get()) {
        stderr_[std::size_t(rank)].append(proc->readAllStandardError());
    }
    ex.stderrTail = stderr_[std::size_t(rank)].text();
    if (const QString first = stderr_[std::size_t(rank)].firstLine();
        first.startsWith(QLatin1String(spec::fork::kExecNotice))) {
        ex.execNotice = first.mid(int(qstrlen(spec::fork::kExecNotice)));
    }
    --alive_;
    emit logLine(QString("rank %1 exited %2")
                     .arg(rank)
                     .arg(ex.crashed ? QString("by signal") : QString::number(ex.exitCode)));
    if ((ex.crashed || ex.exitCode != 0) && !terminating_) {
        terminateAll(QString("rank %1 %2").arg(rank).arg(rankEnd(ex)));
    }
    finishIfDone();
}

void RankPool::terminateAll(const QString& reason) {
    if (outcome_.reason.isEmpty()) {
        outcome_.reason = reason;
    }
    terminating_ = true;
    for (auto& p : procs_) {
        if (p->state() != QProcess::NotRunning) {
            p->terminate();
        }
    }
    if (!killTimer_) {
        killTimer_ = new QTimer(this);
        killTimer_->setSingleShot(true);
        connect(killTimer_, &QTimer::timeout, this, [this] {
            for (auto& p : procs_) {
                if (p->state() != QProcess::NotRunning) {
                    emit logLine("a rank ignored SIGTERM: sending SIGKILL");
                    p->kill();
                }
            }
        });
    }
    killTimer_->start(spec_.graceMs);
}

void RankPool::stop() {
    if (!procs_.empty()) {
        outcome_.stopped = true;
        terminateAll("stopped on request");
    }
}

void RankPool::finishIfDone() {
    if (alive_ > 0 || procs_.empty() || relaunchPending_) {
        return; // still running, already finished, or a retry is on its way
    }
    if (killTimer_) {
        killTimer_->stop();
    }
    const bool allZero = std::ranges::all_of(
        outcome_.ranks, [](const RankExit& e) { return !e.crashed && e.exitCode == 0; });
    if (!allZero && retryOnAnotherPort(outcome_, spec_.deadline)) {
        emit logLine(QString("port %1 was taken: retrying on another port").arg(outcome_.port));
        outcome_.reason.clear();
        relaunchPending_ = true;
        QTimer::singleShot(0, this, [this] {
            relaunchPending_ = false;
            launchAttempt();
        });
        return;
    }
    if (deadlineTimer_) {
        deadlineTimer_->stop();
    }
    outcome_.success = allZero && !outcome_.timedOut && !outcome_.stopped;
    if (!outcome_.success && outcome_.reason.isEmpty()) {
        outcome_.reason = "a rank failed";
    }
    removePidFiles();
    // Destroy processes after the signal handlers return.
    auto finished = std::move(procs_);
    procs_.clear();
    for (auto& p : finished) {
        p.release()->deleteLater();
    }
    emit this->finished(outcome_);
}

PoolOutcome RankPool::runBlocking(const PoolSpec& spec) {
    QEventLoop loop;
    PoolOutcome result;
    auto c = connect(this, &RankPool::finished, &loop, [&](const PoolOutcome& o) {
        result = o;
        loop.quit();
    });
    start(spec);
    loop.exec();
    disconnect(c);
    return result;
}

} // namespace commprof::runner
