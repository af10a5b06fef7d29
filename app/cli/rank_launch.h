// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A command started as torchrun's standalone mode would start it (Debian 12's torchrun stops in
// elastic's agent under Python 3.11): N ranks on this machine, each with the environment that
// mode sets and one rendezvous port, or, with nproc 0, the command once as it is (it starts its
// ranks itself: torchrun, srun, mp.spawn). One rank failing ends its peers, as torchrun does.
// `commprof record` and `confirm` put the capture on top of it (capture_launch.h); `calibrate
// hooks` runs its measuring script with it alone.

#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

namespace commprof::cli {

struct RankLaunch {
    QStringList command; // the program and its arguments
    int nproc = 0;       // 0: the command once, starting its ranks itself
    // Every rank's environment before its rank variables are added.
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    // The ranks' stdout to this program's stderr: stdout then holds one JSON document (--json).
    bool stdoutToStderr = false;
};

struct RankLaunchResult {
    int exitCode = 0; // the command's (with nproc: the first failing rank's), 0 when all ended 0
    QString failure;  // empty when every process exited 0; else what ended how
};

// Runs the ranks to their end, their output forwarded to this terminal. Throws
// std::runtime_error when no rendezvous port is free or the command cannot be started (the
// ranks already started are ended first).
RankLaunchResult launchRanks(const RankLaunch& launch);

} // namespace commprof::cli
