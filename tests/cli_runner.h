// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Runs the real commprof executable for CLI tests.

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStringList>

struct CliResult {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
    QJsonObject json() const { return QJsonDocument::fromJson(out).object(); }
};

// A started process waited for: exit code (-1 for a crash or a timeout, which kills it), stdout,
// stderr.
inline CliResult finishProcess(QProcess& p, int timeoutMs) {
    CliResult r;
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        r.err = "timed out";
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

// Any program, with nothing on its stdin: exit code (-1 for a crash or a timeout), stdout,
// stderr.
inline CliResult
runProgram(const QString& program, const QStringList& args, int timeoutMs = 600000,
           const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment(),
           const QString& workingDir = {}) {
    QProcess p;
    p.setProcessEnvironment(env);
    p.setStandardInputFile(QProcess::nullDevice());
    if (!workingDir.isEmpty()) {
        p.setWorkingDirectory(workingDir);
    }
    p.start(program, args);
    return finishProcess(p, timeoutMs);
}

// One of the built programs.
inline CliResult runCli(const QString& program, const QStringList& args, int timeoutMs = 600000,
                        const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment()) {
    return runProgram(QString(COMMPROF_BIN_DIR "/") + program, args, timeoutMs, env);
}
