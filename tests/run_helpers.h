// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Driving `commprof run` in tests: matrices written to disk, --json-progress read as it comes,
// the runner's pid files.

#include "rank_files.h"
#include "runner/process_identity.h"

#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <functional>
#include <sys/syscall.h>
#include <unistd.h>

// One short ws1 cell, for the runner's fault tests.
inline const QString kQuick =
    "name: quick\n"
    "defaults: {iterations: 6, warmup: 1, batch_size: 8, timeout_s: 120}\n"
    "models: [{name: tiny, params: 2e5}]\n"
    "layers: [{name: gloo_cpu}]\n"
    "world_sizes: [1]\n";
inline const QString kQuickCell = "tiny_gloo_cpu_ws1_r0";

inline QString writeMatrix(const QTemporaryDir& dir, const QString& body,
                           const QString& name = "matrix.yaml") {
    const QString path = dir.filePath(name);
    QFile f(path);
    f.open(QIODevice::WriteOnly);
    f.write(body.toUtf8());
    return path;
}

inline QList<commprof::runner::PidRecord> pidRecords(const QString& outDir) {
    QList<commprof::runner::PidRecord> out;
    const QDir d(QDir(outDir).filePath(".pids"));
    for (const QString& f : d.entryList({"*.pid"})) {
        commprof::runner::PidRecord r;
        if (commprof::runner::readPidRecord(d.filePath(f), r)) {
            out << r;
        }
    }
    return out;
}

// Reads --json-progress lines until `pred` holds or the timeout passes.
inline bool waitForProgress(QProcess& p, QByteArray& seen,
                            const std::function<bool(const QJsonObject&)>& pred, int timeoutMs) {
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < timeoutMs) {
        p.waitForReadyRead(200);
        seen += p.readAllStandardOutput();
        for (const QByteArray& line : seen.split('\n')) {
            const QJsonObject o = QJsonDocument::fromJson(line).object();
            if (!o.isEmpty() && pred(o)) {
                return true;
            }
        }
        if (p.state() == QProcess::NotRunning) {
            return false;
        }
    }
    return false;
}

// Until the cell's ranks report the given iteration (the cell is then mid-run).
inline bool waitForIteration(QProcess& run, const QString& cell, int iteration) {
    QByteArray seen;
    return waitForProgress(
        run, seen,
        [&](const QJsonObject& o) {
            return o["cell"].toString() == cell && o["event"].toString() == "iteration" &&
                   o["iter"].toInt() >= iteration;
        },
        90000);
}

inline QProcess* startRun(QObject* parent, const QStringList& args) {
    auto* p = new QProcess(parent);
    p->start(COMMPROF_BIN_DIR "/commprof",
             QStringList{"run"} + args + QStringList{"--json-progress"});
    return p;
}

// Runs `matrix` into `out`, sends `signal` to `commprof run` once `cell` is at its third
// iteration, and checks what every signal that stops a run must leave: exit 1, the cell recorded
// as stopped, none of its ranks running. Returns early on a failed check: callers test
// QTest::currentTestFailed() before going on.
// With `repeatMs`, the signal is sent again every `repeatMs` until the run exits, as a supervisor
// that repeats itself does (through a pidfd, so never to a process that took the pid since).
inline void stopRunMidCell(QObject* parent, const QString& matrix, const QString& out,
                           const QString& cell, int signal, int repeatMs = 0) {
    QProcess* run = startRun(parent, {matrix, "--out", out});
    QVERIFY(waitForIteration(*run, cell, 3));
    const QList<commprof::runner::PidRecord> ranks = pidRecords(out);
    QCOMPARE(ranks.size(), 2);
    const int pidfd = int(::syscall(SYS_pidfd_open, pid_t(run->processId()), 0));
    QVERIFY(pidfd >= 0);
    QVERIFY(::syscall(SYS_pidfd_send_signal, pidfd, signal, nullptr, 0) == 0);
    QElapsedTimer waited;
    waited.start();
    while (repeatMs > 0 && !run->waitForFinished(repeatMs) && waited.elapsed() < 60000) {
        ::syscall(SYS_pidfd_send_signal, pidfd, signal, nullptr, 0);
    }
    ::close(pidfd);
    QVERIFY(run->state() == QProcess::NotRunning || run->waitForFinished(60000));
    QCOMPARE(run->exitStatus(), QProcess::NormalExit);
    QCOMPARE(run->exitCode(), 1);
    const QJsonObject record = readJsonFile(out + "/cells/" + cell + "/cell.json");
    QCOMPARE(record["status"].toString(), QString("stopped"));
    QCOMPARE(record["stopped"].toBool(), true);
    // Issue 40: the cell's state is "stopped" in the JSON progress and on stderr, never
    // "failed" (the old "failed stopped on request"), and the summary counts it apart.
    bool stoppedEvent = false;
    for (const QByteArray& line : run->readAllStandardOutput().split('\n')) {
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        if (o["event"].toString() == "cell" && o["id"].toString() == cell) {
            QVERIFY2(o["state"].toString() != "failed", line.constData());
            stoppedEvent = stoppedEvent || o["state"].toString() == "stopped";
        }
    }
    QVERIFY(stoppedEvent);
    const QString err = QString::fromUtf8(run->readAllStandardError());
    QVERIFY2(err.contains(
                 QRegularExpression("^" + cell + " +stopped", QRegularExpression::MultilineOption)),
             qPrintable(err));
    QVERIFY2(!err.contains(
                 QRegularExpression("^" + cell + " +failed", QRegularExpression::MultilineOption)),
             qPrintable(err));
    QVERIFY2(err.contains("0 failed, 1 stopped"), qPrintable(err));
    for (const commprof::runner::PidRecord& r : ranks) {
        QVERIFY(!commprof::runner::stillRunning(r));
    }
}

// Every file and folder under DIR (relative path) with its content, but those in `skip`: what a
// refused or hostile run must leave as it was.
inline QMap<QString, QByteArray> snapshot(const QString& dir, const QStringList& skip = {}) {
    QMap<QString, QByteArray> out;
    QDirIterator it(dir, QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot | QDir::Hidden,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        const QString rel = QDir(dir).relativeFilePath(path);
        if (skip.contains(rel)) {
            continue;
        }
        QFile f(path);
        out[rel] = QFileInfo(path).isDir()
                       ? QByteArray("<dir>")
                       : (f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<unreadable>"));
    }
    return out;
}
