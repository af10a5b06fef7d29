// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A run's rank fork server (commprof-rank --fork-server, spec/fork_contract.h): libtorch
// loaded once, each rank then forked from it through commprof-rank-fork, which a launcher
// starts in the rank's place and which keeps its contract (the rank's pipes, exit status and
// signals, a pid file naming a process that ends the rank when it ends). Where the server
// cannot serve, ranks are started by exec as before, and reason() says why.

#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

#include <memory>

namespace commprof::runner {

class ForkServer {
public:
    ForkServer() = default;
    ForkServer(const ForkServer&) = delete;
    ForkServer& operator=(const ForkServer&) = delete;
    ~ForkServer(); // ends the server

    // Starts the server for RANK_PROGRAM with ENV (the ranks' environment but for the
    // variables set per rank) and waits until it is ready, at most timeoutMs. False when ranks
    // are to be started by exec; reason() says why.
    bool start(const QString& rankProgram, const QProcessEnvironment& env, int timeoutMs = 60000);
    bool serving() const { return serving_; }
    const QString& reason() const { return reason_; }
    qint64 pid() const { return process_ ? process_->processId() : 0; }

    // What a launcher starts for one rank of RANK_PROGRAM ARGS: the client with them.
    QString program() const { return client_; }
    QStringList arguments(const QString& rankProgram, const QStringList& args) const;

private:
    bool refuse(const QString& why);

    std::unique_ptr<QTemporaryDir> dir_; // the socket's, private to this user
    std::unique_ptr<QProcess> process_;
    QString client_;
    QString socket_;
    QString reason_;
    bool serving_ = false;
};

// Removes this user's commprof-fork-PID-* folders under the temporary folder that a runner
// killed with SIGKILL left behind: those whose runner PID no longer exists. A folder without a
// pid (an older commprof's) goes when no process listens on its socket (/proc/net/unix), or,
// without a socket, when older than an hour. Returns how many it removed. Every start of a
// server runs it first.
int removeStaleForkFolders();

// commprof-rank-fork beside RANK_PROGRAM (a build tree) or in ../libexec/commprof/ (an
// installed one); empty when neither exists.
QString forkClientFor(const QString& rankProgram);

} // namespace commprof::runner
