// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A run's rank fork server (commprof-rank --fork-server, spec/fork_contract.h): libtorch
// loaded once, each rank then forked from it through commprof-rank-fork, which a launcher
// starts in the rank's place and which keeps its contract (the rank's pipes, exit status and
// signals, a pid file naming a process that ends the rank when it ends). Where the server
// cannot serve, ranks are started by exec as before, and reason() says why.

#include <QElapsedTimer>
#include <QObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QTimer>

#include <memory>

namespace commprof::runner {

class ForkServer : public QObject {
    Q_OBJECT
public:
    // How long a serving server may take to answer a probe (a line on its stdin): its loop
    // answers at once, but may be inside a fork of libtorch's process on a loaded machine.
    static constexpr int kAnswerMs = 5000;
    static constexpr int kProbeEveryMs = 1000;

    explicit ForkServer(QObject* parent = nullptr);
    ForkServer(const ForkServer&) = delete;
    ForkServer& operator=(const ForkServer&) = delete;
    ~ForkServer() override; // ends the server

    // Starts the server for RANK_PROGRAM with ENV (the ranks' environment but for the
    // variables set per rank) and waits until it is ready, at most timeoutMs. False when ranks
    // are to be started by exec; reason() says why. A server that serves is then probed every
    // second while an event loop runs (lost()).
    bool start(const QString& rankProgram, const QProcessEnvironment& env, int timeoutMs = 60000);
    bool serving() const { return serving_; }
    const QString& reason() const { return reason_; }
    // The server's pid, kept once it has ended; 0 when none was started.
    qint64 pid() const { return pid_; }

    // Whether it still serves: its process runs and answers a probe within answerMs of
    // sending it (a probe already on its way counts from when it was sent). One that does not
    // is ended (a stopped one too: it would never answer the clients waiting on it), serves no
    // more, and lost() says why, naming its pid.
    bool answers(int answerMs = kAnswerMs);

    // What a launcher starts for one rank of RANK_PROGRAM ARGS: the client with them.
    QString program() const { return client_; }
    QStringList arguments(const QString& rankProgram, const QStringList& args) const;

signals:
    // The server that served has ended or stopped answering; WHY names it. Ranks are to be
    // started by exec from now on; the ranks it had forked were ended with it.
    void lost(const QString& why);

private:
    bool refuse(const QString& why);
    void sendProbe();
    void readAnswers();
    void tick();
    void lose(const QString& why);
    QString endedWhy() const;
    QString silentWhy(int answerMs) const;

    std::unique_ptr<QTemporaryDir> dir_; // the socket's, private to this user
    std::unique_ptr<QProcess> process_;
    QString client_;
    QString socket_;
    QString reason_;
    bool serving_ = false;
    qint64 pid_ = 0;
    QTimer probeTimer_;
    QElapsedTimer probeSent_; // valid while a probe waits for its answer
    int answerMs_ = kAnswerMs;
};

// Removes this user's commprof-fork-PID-* folders under the temporary folder that a runner
// killed with SIGKILL left behind: those whose runner PID no longer exists. A folder without a
// pid (an older commprof's) goes when no process listens on its socket (/proc/net/unix), or,
// without a socket, when older than an hour. Returns how many it removed. Every start of a
// server runs it first.
int removeStaleForkFolders();

} // namespace commprof::runner
