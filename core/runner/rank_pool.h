// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A pool of real commprof-rank processes for one cell: rendezvous on loopback, one absolute
// deadline, every rank joined, all-or-nothing. On a rank failure or the deadline every rank
// is ended (SIGTERM, then SIGKILL after a grace period).

#include "runner/launcher_base.h"

#include <QDeadlineTimer>
#include <QJsonObject>
#include <QObject>
#include <QProcess>
#include <QStringList>
#include <QTimer>

#include <memory>
#include <vector>

namespace commprof::runner {

// Where one rank runs when the cell's hosts are emulated (runner/host_network.h).
struct RankPlace {
    QString address;   // the host's address: the rank binds gloo to it (COMMPROF_BIND_ADDR)
    QString netnsPath; // what the rank opens to join its host (/run/netns/NAME as root)
    // The user namespace the rank joins first, where the hosts are a normal user's (entering a
    // network namespace takes CAP_SYS_ADMIN in the user namespace that owns it); empty as root.
    QString userns;
};

struct PoolSpec {
    QString program;  // path to commprof-rank
    QStringList args; // flags shared by every rank
    int worldSize = 1;
    QString workDir;         // where the ranks write their files
    QString pidDir;          // where pid files go, so a later launcher can end leftovers
    QString pidTag;          // file name prefix for this pool's pid files
    QDeadlineTimer deadline; // absolute; retries never extend it
    int graceMs = 3000;      // between SIGTERM and SIGKILL
    int firstPort = 0;       // 0: pick a free loopback port; otherwise try this one first
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    // One per rank on emulated hosts; empty: every rank on this machine's loopback. Rank 0's
    // address is every rank's MASTER_ADDR.
    std::vector<RankPlace> places;
    // COMMPROF_RUN_ID of every rank and in the pid files, so only this run's ranks are ever
    // ended through them; a fresh one when empty.
    QString runId;
};

class RankPool : public QObject {
    Q_OBJECT
public:
    explicit RankPool(QObject* parent = nullptr);
    ~RankPool() override;

    void start(const PoolSpec& spec);
    void stop(); // ends every rank; finished() follows
    bool running() const { return !procs_.empty(); }
    qint64 pid(int rank) const;
    // Runs an event loop until the pool finishes.
    PoolOutcome runBlocking(const PoolSpec& spec);

    // A port of 127.0.0.1 free now, or 0 with why not in ERROR (no port free, loopback down).
    // Given WANTED, that port when it is free now, else 0.
    static int freeLoopbackPort(QString* error = nullptr, int wanted = 0);

signals:
    void progress(int rank, const QJsonObject& event); // JSON lines from a rank's stdout
    void finished(const commprof::runner::PoolOutcome& outcome);
    void logLine(const QString& line);

private:
    void launchAttempt();
    // The rank's host namespace and the user namespace to join first, opened (-1: none), and
    // its bind address put in `env`.
    struct HostFds {
        int net = -1;
        int user = -1;
    };
    HostFds openHostOf(int rank, QProcessEnvironment& env) const;
    // The phases of one rank's launch: its environment and process started, its namespaces and
    // parent-death signal set for the child, its output and exit followed.
    bool startRank(int rank, const QString& master, const QString& storeToken);
    void confine(QProcess* raw, int rank, const HostFds& host) const;
    void watch(QProcess* raw, int rank);
    void onFailedToStart(int started);
    void failWithoutPort(const QString& why);
    void onRankFinished(int rank, int exitCode, QProcess::ExitStatus status);
    void terminateAll(const QString& reason);
    void finishIfDone();
    QString pidFile(int rank) const;
    void removePidFiles();

    PoolSpec spec_;
    PoolOutcome outcome_;
    std::vector<std::unique_ptr<QProcess>> procs_;
    std::vector<StderrTail> stderr_;
    std::vector<LineSplitter> stdout_;
    int alive_ = 0;
    bool terminating_ = false;
    bool launching_ = false;       // inside launchAttempt's loop
    bool relaunchPending_ = false; // a port-clash retry is queued
    QTimer* deadlineTimer_ = nullptr;
    QTimer* killTimer_ = nullptr;
};

} // namespace commprof::runner
