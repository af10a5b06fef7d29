// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A real commprof-rank that waits for a peer that never comes: a live rank process to record
// in pid files. It ends itself when its rendezvous timeout passes.

#include "rank_files.h"
#include "runner/process_identity.h"
#include "runner/rank_pool.h"

#include <QProcess>
#include <QTemporaryDir>

inline qint64 startWaitingRank(const QString& runId, const QString& outDir, int timeoutS = 90) {
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("RANK", "0");
    env.insert("WORLD_SIZE", "2");
    env.insert("MASTER_ADDR", "127.0.0.1");
    env.insert("MASTER_PORT", QString::number(commprof::runner::RankPool::freeLoopbackPort()));
    env.insert("COMMPROF_RUN_ID", runId);
    env.insert("COMMPROF_STORE_TOKEN", commprof::runner::randomToken());
    p.setProcessEnvironment(env);
    p.setProgram(rankBinary());
    p.setArguments(
        {"--params", "2e4", "--out", outDir, "--rendezvous-timeout-s", QString::number(timeoutS)});
    p.setStandardOutputFile(QProcess::nullDevice());
    p.setStandardErrorFile(QProcess::nullDevice());
    qint64 pid = 0;
    return p.startDetached(&pid) ? pid : 0;
}
