// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Real commprof-rank processes in tests: one pool of ranks over loopback, and what went wrong.

#include "rank_files.h"
#include "runner/rank_pool.h"

// `world` ranks of `args` writing into `dir`, their collectives and rendezvous given up after
// `timeoutS`, the pool after `deadlineMs`.
inline commprof::runner::PoolSpec
rankPoolSpec(const QString& dir, int world, const QStringList& args, int timeoutS, int deadlineMs) {
    const QString timeout = QString::number(timeoutS);
    commprof::runner::PoolSpec spec;
    spec.program = rankBinary();
    spec.args =
        args +
        QStringList{"--out", dir, "--collective-timeout-s", timeout, "--rendezvous-timeout-s",
                    timeout};
    spec.worldSize = world;
    spec.workDir = dir;
    spec.deadline = QDeadlineTimer(deadlineMs);
    return spec;
}

inline commprof::runner::PoolOutcome
runRankPool(const QString& dir, int world, const QStringList& args,
            const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment()) {
    commprof::runner::PoolSpec spec = rankPoolSpec(dir, world, args, 60, 300000);
    spec.env = env;
    commprof::runner::RankPool pool;
    return pool.runBlocking(spec);
}

inline QString poolFailure(const commprof::runner::PoolOutcome& o) {
    QString s = o.reason;
    for (const auto& r : o.ranks) {
        s += QString("\nrank %1 exit %2: %3").arg(r.rank).arg(r.exitCode).arg(r.stderrTail);
    }
    return s;
}
