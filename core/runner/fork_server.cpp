// SPDX-License-Identifier: GPL-3.0-or-later
#include "fork_server.h"

#include "spec/fork_contract.h"
#include "spec/rank_contract.h"

#include <QDateTime>
#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSet>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace commprof::runner {
namespace {

namespace contract = spec::fork;

// A unix socket's path must fit sockaddr_un's 108 bytes.
constexpr int kMaxSocketPath = 100;

// The runner's pid in the name tells a live run's folder from one a killed runner left.
constexpr const char* kFolderPrefix = "commprof-fork-";
constexpr qint64 kSocketlessAgeS = 3600;

// The unix sockets some process listens on, by path (/proc/net/unix: flag __SO_ACCEPTCON). Read
// rather than connected to: a connection would be a request the live server reports as broken.
QSet<QString> listeningSockets() {
    constexpr unsigned kAcceptCon = 0x10000;
    QSet<QString> out;
    QFile table("/proc/net/unix");
    if (!table.open(QIODevice::ReadOnly)) {
        return out;
    }
    table.readLine(); // the header
    while (!table.atEnd()) {
        const QList<QByteArray> f = table.readLine().simplified().split(' ');
        bool ok = false;
        if (f.size() >= 8 && (f[3].toUInt(&ok, 16) & kAcceptCon) && ok) {
            out.insert(QFile::decodeName(f[7]));
        }
    }
    return out;
}

// commprof-rank-fork beside RANK_PROGRAM (a build tree) or in ../libexec/commprof/ (an
// installed one); empty when neither exists.
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

} // namespace

int removeStaleForkFolders() {
    const QDir temp = QDir::temp();
    const QString prefix = kFolderPrefix;
    int removed = 0;
    const QSet<QString> listening = listeningSockets();
    for (const QFileInfo& info :
         temp.entryInfoList({prefix + "*"}, QDir::Dirs | QDir::NoDotAndDotDot | QDir::Hidden)) {
        struct stat st {};
        if (::lstat(QFile::encodeName(info.absoluteFilePath()).constData(), &st) != 0 ||
            !S_ISDIR(st.st_mode) || st.st_uid != ::getuid()) {
            continue; // another user's, or no folder: never ours to remove
        }
        const QString socket = QDir(info.absoluteFilePath()).filePath("ranks.sock");
        bool named = false;
        const pid_t runner = info.fileName().mid(prefix.size()).section('-', 0, 0).toInt(&named);
        const bool stale =
            named && runner > 0 ? ::kill(runner, 0) != 0 && errno == ESRCH
            : QFileInfo::exists(socket)
                ? !listening.contains(socket)
                : info.lastModified().secsTo(QDateTime::currentDateTime()) > kSocketlessAgeS;
        if (stale && QDir(info.absoluteFilePath()).removeRecursively()) {
            ++removed;
        }
    }
    return removed;
}

ForkServer::ForkServer(QObject* parent) : QObject(parent) {
    probeTimer_.setInterval(kProbeEveryMs);
    connect(&probeTimer_, &QTimer::timeout, this, &ForkServer::tick);
}

ForkServer::~ForkServer() {
    if (process_ && process_->state() != QProcess::NotRunning) {
        process_->disconnect(this);
        process_->closeWriteChannel(); // the server ends when its stdin does
        process_->waitForFinished(2000);
    }
    refuse({}); // one that did not end by then is killed
}

bool ForkServer::refuse(const QString& why) {
    reason_ = why;
    serving_ = false;
    probeTimer_.stop();
    if (process_) {
        process_->disconnect(this);
    }
    if (process_ && process_->state() != QProcess::NotRunning) {
        process_->kill();
        process_->waitForFinished(1000);
    }
    return false;
}

void ForkServer::sendProbe() {
    process_->write("\n");
    probeSent_.start();
}

void ForkServer::readAnswers() {
    while (process_->canReadLine()) {
        if (QString::fromUtf8(process_->readLine()).trimmed() == contract::kAlive) {
            probeSent_.invalidate();
        }
    }
}

// Once a second while the server serves: it ended, its probe went unanswered, or a new probe.
void ForkServer::tick() {
    if (!serving_) {
        return;
    }
    if (process_->state() == QProcess::NotRunning) {
        lose(endedWhy());
        return;
    }
    if (!probeSent_.isValid()) {
        sendProbe();
        return;
    }
    process_->waitForReadyRead(0); // an answer the event loop has not read yet (a busy GUI)
    readAnswers();
    if (probeSent_.isValid() && probeSent_.elapsed() >= answerMs_) {
        lose(silentWhy(answerMs_));
    }
}

bool ForkServer::answers(int answerMs) {
    if (!serving_) {
        return false;
    }
    if (process_->state() == QProcess::NotRunning) {
        lose(endedWhy());
        return false;
    }
    if (!probeSent_.isValid()) {
        sendProbe();
    }
    while (probeSent_.isValid() && process_->state() != QProcess::NotRunning) {
        const qint64 left = answerMs - probeSent_.elapsed();
        if (left <= 0 || !process_->waitForReadyRead(int(left))) {
            break;
        }
    }
    if (probeSent_.isValid()) {
        lose(process_->state() == QProcess::NotRunning ? endedWhy() : silentWhy(answerMs));
    }
    return serving_;
}

QString ForkServer::endedWhy() const {
    const QString how = process_->exitStatus() == QProcess::CrashExit
                            ? QString("was killed by signal %1 (%2)")
                                  .arg(process_->exitCode())
                                  .arg(QString::fromLocal8Bit(::strsignal(process_->exitCode())))
                            : QString("exited with code %1").arg(process_->exitCode());
    return QString("the run's fork server (pid %1) %2").arg(pid_).arg(how);
}

// Names what /proc says of the silent server: stopped (SIGSTOP, SIGTSTP), traced, or waiting.
QString ForkServer::silentWhy(int answerMs) const {
    QFile stat(QString("/proc/%1/stat").arg(pid_));
    QByteArray line = stat.open(QIODevice::ReadOnly) ? stat.readLine() : QByteArray();
    const qsizetype close = line.lastIndexOf(')'); // after the command, which may hold spaces
    const char state = close >= 0 && close + 2 < line.size() ? line[close + 2] : '?';
    const QString what = state == 'T'   ? "its process is stopped"
                         : state == 't' ? "its process is stopped by a tracer"
                         : state == 'D' ? "its process is in an uninterruptible wait"
                                        : QString("its process is in state %1").arg(QChar(state));
    return QString("the run's fork server (pid %1) stopped answering: no answer to a probe "
                   "within %2 s (%3); it was ended")
        .arg(pid_)
        .arg(answerMs / 1000.0, 0, 'g', 3)
        .arg(what);
}

void ForkServer::lose(const QString& why) {
    if (!serving_) {
        return;
    }
    refuse(why); // ends it, and with it (PR_SET_PDEATHSIG) the ranks it forked
    probeSent_.invalidate();
    emit lost(why);
}

bool ForkServer::start(const QString& rankProgram, const QProcessEnvironment& env, int timeoutMs) {
    if (env.value(contract::kEnableEnv) == "0") {
        return refuse(QString("the fork server is off (%1=0)").arg(contract::kEnableEnv));
    }
    client_ = forkClientFor(rankProgram);
    if (client_.isEmpty()) {
        return refuse(QString("no %1 beside %2").arg(contract::kClientProgram, rankProgram));
    }
    removeStaleForkFolders();
    dir_ = std::make_unique<QTemporaryDir>(
        QDir::temp().filePath(QString("%1%2-XXXXXX").arg(kFolderPrefix).arg(::getpid())));
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
    pid_ = process_->waitForStarted(timeoutMs) ? process_->processId() : 0;
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
    connect(process_.get(), &QProcess::readyReadStandardOutput, this, &ForkServer::readAnswers);
    connect(process_.get(), &QProcess::finished, this, [this] { lose(endedWhy()); });
    readAnswers();
    probeTimer_.start();
    return true;
}

QStringList ForkServer::arguments(const QString& rankProgram, const QStringList& args) const {
    return QStringList{socket_, rankProgram} + args;
}

} // namespace commprof::runner
