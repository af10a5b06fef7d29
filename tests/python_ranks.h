// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the suites that start Python DDP ranks of their own share: whether Debian's python3 has
// torch, the environment torch.distributed's env:// rendezvous reads for one rank, and the
// JSON a reference script prints.

#include <QJsonDocument>
#include <QJsonObject>
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

// What `script` (under tests/) prints on stdout for `args`, as JSON; {} with `error` its
// stderr's tail when it does not finish within `timeoutMs` or fails.
inline QJsonObject referenceJson(const QString& script, const QStringList& args, int timeoutMs,
                                 QString& error) {
    QProcess p;
    p.start(kPython, QStringList{COMMPROF_SOURCE_DIR "/tests/" + script} + args);
    if (!p.waitForFinished(timeoutMs) || p.exitStatus() != QProcess::NormalExit ||
        p.exitCode() != 0) {
        error = p.readAllStandardError().right(4000);
        return {};
    }
    return QJsonDocument::fromJson(p.readAllStandardOutput()).object();
}

} // namespace python_ranks

// Skips the test where python3 has no torch (`have` false), saying what is then missing; where
// COMMPROF_REQUIRE_PYTORCH is set the absence fails it instead.
#define REQUIRE_PYTORCH_OR_SKIP(have, without)                                                     \
    do {                                                                                           \
        if (!(have)) {                                                                             \
            if (qEnvironmentVariableIsSet("COMMPROF_REQUIRE_PYTORCH")) {                           \
                QFAIL("/usr/bin/python3 cannot import torch (install python3-torch)");             \
            }                                                                                      \
            QSKIP(without);                                                                        \
        }                                                                                          \
    } while (0)
