// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the suites that start Python DDP ranks of their own share: whether Debian's python3 has
// torch, and the environment torch.distributed's env:// rendezvous reads for one rank.

#include <QProcess>
#include <QProcessEnvironment>
#include <QString>

namespace python_ranks {

inline const QString kPython = "/usr/bin/python3";

inline bool hasTorch() {
    QProcess probe;
    probe.start(kPython, {"-c", "import torch"});
    return probe.waitForFinished(60000) && probe.exitCode() == 0;
}

inline QProcessEnvironment rankEnvironment(int rank, int world, const QString& masterAddr,
                                           int masterPort) {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("RANK", QString::number(rank));
    env.insert("WORLD_SIZE", QString::number(world));
    env.insert("MASTER_ADDR", masterAddr);
    env.insert("MASTER_PORT", QString::number(masterPort));
    // torch 2.x as Debian 13 builds it has no libuv, which its TCPStore asks for by default
    // (record --nproc sets the same, app/cli/capture_launch.cpp); torch 1.13 ignores it.
    env.insert("USE_LIBUV", "0");
    return env;
}

} // namespace python_ranks
