// SPDX-License-Identifier: GPL-3.0-or-later
#include "rank_launch.h"

#include "runner/rank_pool.h"

#include <QElapsedTimer>
#include <QProcess>

#include <memory>
#include <stdexcept>
#include <vector>

namespace commprof::cli {
namespace {

constexpr int kGraceMs = 5000; // a rank's peers get this long to end after it failed

// What torchrun's standalone mode gives each rank (torch.distributed.run, elastic's agent),
// plus USE_LIBUV=0: torch 2.x as Debian builds it has no libuv for the rendezvous store.
void addRankEnvironment(QProcessEnvironment& env, int rank, int world, int port) {
    const QString r = QString::number(rank), w = QString::number(world);
    env.insert("RANK", r);
    env.insert("LOCAL_RANK", r);
    env.insert("GROUP_RANK", "0");
    env.insert("ROLE_RANK", r);
    env.insert("ROLE_NAME", "default");
    env.insert("WORLD_SIZE", w);
    env.insert("LOCAL_WORLD_SIZE", w);
    env.insert("ROLE_WORLD_SIZE", w);
    env.insert("GROUP_WORLD_SIZE", "1");
    env.insert("MASTER_ADDR", "127.0.0.1");
    env.insert("MASTER_PORT", QString::number(port));
    env.insert("TORCHELASTIC_RESTART_COUNT", "0");
    env.insert("TORCHELASTIC_MAX_RESTARTS", "0");
    env.insert("TORCHELASTIC_RUN_ID", "commprof");
    env.insert("USE_LIBUV", "0");
    if (!env.contains("OMP_NUM_THREADS") && world > 1) {
        env.insert("OMP_NUM_THREADS", "1"); // as torchrun sets it for several local ranks
    }
}

QString endedHow(const QProcess& p, int rank) {
    const QString who = rank < 0 ? QString("the command") : QString("rank %1").arg(rank);
    return p.exitStatus() == QProcess::CrashExit
               ? who + " was killed by a signal"
               : QString("%1 exited %2").arg(who).arg(p.exitCode());
}

} // namespace

RankLaunchResult launchRanks(const RankLaunch& launch) {
    if (launch.command.isEmpty()) {
        throw std::runtime_error("no command to run");
    }
    std::vector<std::unique_ptr<QProcess>> procs;
    const int count = launch.nproc > 0 ? launch.nproc : 1;
    int port = 0;
    if (launch.nproc > 0) {
        QString why;
        port = runner::RankPool::freeLoopbackPort(&why);
        if (port == 0) {
            throw std::runtime_error("no free port on 127.0.0.1 for the ranks' rendezvous: " +
                                     why.toStdString());
        }
    }
    for (int i = 0; i < count; ++i) {
        auto p = std::make_unique<QProcess>();
        QProcessEnvironment env = launch.env;
        if (launch.nproc > 0) {
            addRankEnvironment(env, i, launch.nproc, port);
        }
        p->setProcessEnvironment(env);
        if (launch.stdoutToStderr) {
            p->setProcessChannelMode(QProcess::ForwardedErrorChannel);
            p->setStandardOutputFile("/proc/self/fd/2", QIODevice::Append);
        } else {
            p->setProcessChannelMode(QProcess::ForwardedChannels);
        }
        p->setInputChannelMode(QProcess::ForwardedInputChannel);
        p->start(launch.command.first(), launch.command.mid(1));
        if (!p->waitForStarted(30000)) {
            const QString err = p->errorString();
            for (auto& q : procs) {
                q->kill();
                q->waitForFinished(kGraceMs);
            }
            throw std::runtime_error("cannot start " + launch.command.first().toStdString() + ": " +
                                     err.toStdString());
        }
        procs.push_back(std::move(p));
    }
    RankLaunchResult result;
    QElapsedTimer sinceFailure;
    bool terminated = false;
    for (;;) {
        bool allDone = true;
        for (std::size_t i = 0; i < procs.size(); ++i) {
            QProcess& p = *procs[i];
            if (p.state() != QProcess::NotRunning) {
                p.waitForFinished(50);
            }
            if (p.state() != QProcess::NotRunning) {
                allDone = false;
                continue;
            }
            const bool failed = p.exitStatus() == QProcess::CrashExit || p.exitCode() != 0;
            if (failed && result.failure.isEmpty()) {
                result.failure = endedHow(p, launch.nproc > 0 ? int(i) : -1);
                result.exitCode = p.exitStatus() == QProcess::CrashExit ? 1 : p.exitCode();
                sinceFailure.start();
            }
        }
        if (allDone) {
            break;
        }
        // As torchrun does: one rank failing ends its peers, which would wait for it forever.
        if (!result.failure.isEmpty() && !terminated) {
            for (auto& p : procs) {
                p->terminate();
            }
            terminated = true;
        } else if (terminated && sinceFailure.elapsed() > kGraceMs) {
            for (auto& p : procs) {
                p->kill();
            }
        }
    }
    return result;
}

} // namespace commprof::cli
