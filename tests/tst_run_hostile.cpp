// SPDX-License-Identifier: GPL-3.0-or-later
// `commprof run` under the second campaign's faults (issue 33), on the real binaries: the
// runner killed outright, the terminal closed, the wall clock stepped back, no free port, a
// rank that forges progress, RLIMIT_NPROC too low, and results folders that are foreign, of
// another matrix or deleted mid-run.

#include "cli_runner.h"
#include "rank_files.h"
#include "run_helpers.h"
#include "runner/process_identity.h"
#include "waiting_rank.h"

#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <sys/stat.h>
#include <unistd.h>

using namespace commprof::runner;

namespace {

// A ws2 cell of ITERATIONS, then a ws1 cell.
QString longMatrix(int iterations) {
    return QString("name: long\n"
                   "defaults: {iterations: %1, warmup: 2, batch_size: 8, timeout_s: 300}\n"
                   "models: [{name: tiny, params: 2e5}]\n"
                   "layers: [{name: gloo_cpu}]\n"
                   "world_sizes: [2, 1]\n")
        .arg(iterations);
}
const QString kLongCell = "tiny_gloo_cpu_ws2_r0";

QString cellFile(const QString& out, const QString& cell, const QString& file) {
    return QString("%1/cells/%2/%3").arg(out, cell, file);
}

bool writeText(const QString& path, const QByteArray& text, QFile::Permissions perms = {}) {
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(text) != text.size()) {
        return false;
    }
    f.close();
    return perms == QFile::Permissions{} || f.setPermissions(perms);
}

bool runs(const QString& program, const QStringList& args) {
    return runProgram(program, args, 30000).exitCode == 0;
}

} // namespace

class TstRunHostile : public QObject {
    Q_OBJECT
private slots:
    // Item 1: SIGKILL of the runner leaves nothing to end its ranks; each dies with it
    // (PR_SET_PDEATHSIG) instead of running its cell to the end unwatched. The ranks are
    // stopped first: a rank that writes nothing (one waiting for its peers at start-up, as in
    // the campaign) never meets the closed pipe that would otherwise end it.
    void ranksDieWithAKilledRunner() {
        QTemporaryDir dir;
        const QString out = dir.filePath("r");
        QProcess* run = startRun(this, {writeMatrix(dir, longMatrix(1000000)), "--out", out});
        QVERIFY(waitForIteration(*run, kLongCell, 3));
        const QList<PidRecord> ranks = pidRecords(out);
        QCOMPARE(ranks.size(), 2);
        const auto cleanup = qScopeGuard([&] {
            for (const PidRecord& r : ranks) {
                if (stillRunning(r)) {
                    ::kill(pid_t(r.pid), SIGKILL);
                }
            }
        });
        for (const PidRecord& r : ranks) {
            QVERIFY(::kill(pid_t(r.pid), SIGSTOP) == 0);
        }
        QVERIFY(::kill(pid_t(run->processId()), SIGKILL) == 0);
        QVERIFY(run->waitForFinished(10000));
        for (const PidRecord& r : ranks) {
            QTRY_VERIFY_WITH_TIMEOUT(!stillRunning(r), 5000);
        }
    }

    // Item 1, the other half: a launcher killed while it wrote rank 0's pid record leaves only
    // its temporary file (FILE.pid.XXXXXX.tmp); --resume ends the rank it names.
    void resumeEndsTheRankATemporaryPidRecordNames() {
        QTemporaryDir dir;
        const QString out = dir.filePath("r");
        const QString runId = randomToken();
        const qint64 rank = startWaitingRank(runId, dir.path(), 120);
        QVERIFY(rank > 0);
        const auto cleanup = qScopeGuard([&] { ::kill(pid_t(rank), SIGKILL); });
        QTRY_VERIFY(processStartTime(rank) != 0);
        QVERIFY(QDir().mkpath(out + "/.pids"));
        const QString partial = out + "/.pids/" + kQuickCell + "_rank0.pid.Ab3xYz.tmp";
        QVERIFY(writeText(
            partial,
            QString("%1 %2 %3\n").arg(rank).arg(processStartTime(rank)).arg(runId).toUtf8()));
        const CliResult r =
            runCli("commprof", {"run", writeMatrix(dir, kQuick), "--out", out, "--resume"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.err.contains("ended 1 rank process(es) left by an earlier launcher"),
                 r.err.constData());
        QTRY_VERIFY_WITH_TIMEOUT(processStartTime(rank) == 0, 5000);
        QVERIFY(!QFile::exists(partial));
    }

    // Item 2: the terminal closing (SIGHUP) and SIGQUIT stop the run like Ctrl-C: the cell is
    // recorded as stopped, launcher.log is written, no rank is left.
    void hangupAndQuitStopTheRunLikeInterrupt_data() {
        QTest::addColumn<int>("signal");
        QTest::newRow("SIGHUP") << int(SIGHUP);
        QTest::newRow("SIGQUIT") << int(SIGQUIT);
    }
    void hangupAndQuitStopTheRunLikeInterrupt() {
        QFETCH(int, signal);
        QTemporaryDir dir;
        const QString out = dir.filePath("r");
        stopRunMidCell(this, writeMatrix(dir, longMatrix(1000000)), out, kLongCell, signal);
        if (QTest::currentTestFailed()) {
            return;
        }
        QVERIFY(QFile::exists(cellFile(out, kLongCell, "launcher.log")));
    }

    // Issue 41: SIGTERM repeated every 2 ms until the run exits (a supervisor's second signal
    // 50 ms after the first ended the run by the signal when it came after the handlers were
    // put back): every repeat is the same stop, and the exit stays the orderly 1.
    void repeatedStopSignalsKeepTheOrderlyExit() {
        QTemporaryDir dir;
        stopRunMidCell(this, writeMatrix(dir, longMatrix(1000000)), dir.filePath("r"), kLongCell,
                       SIGTERM, 2);
    }

    // Item 4: the wall clock stepped back an hour mid-cell (monotonic untouched); the cell's
    // duration comes from the monotonic clock and stays what it was.
    void wallClockSteppedBackMovesNoDuration() {
        QTemporaryDir dir;
        const QString out = dir.filePath("r");
        const QString trigger = dir.filePath("step-back");
        QProcess run;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("LD_PRELOAD", COMMPROF_CLOCK_STEP_SHIM);
        env.insert("COMMPROF_TEST_STEP_BACK_FILE", trigger);
        run.setProcessEnvironment(env);
        QElapsedTimer clock;
        clock.start();
        run.start(COMMPROF_BIN_DIR "/commprof",
                  {"run",
                   writeMatrix(dir, QString(kQuick).replace("iterations: 6", "iterations: 300")),
                   "--out", out, "--json-progress"});
        QVERIFY(waitForIteration(run, kQuickCell, 2));
        QVERIFY(writeText(trigger, "now\n"));
        QVERIFY(run.waitForFinished(120000));
        QCOMPARE(run.exitCode(), 0);
        const double wallS =
            readJsonFile(cellFile(out, kQuickCell, "manifest.json"))["wall_s"].toDouble(-1);
        QVERIFY2(wallS > 0 && wallS * 1000 <= clock.elapsed(), qPrintable(QString::number(wallS)));
    }

    // No free port (a network namespace of its own whose ephemeral ports are all reserved):
    // the cell fails saying so, and no rank is launched with MASTER_PORT=0.
    void noFreePortIsSaid() {
        if (!runs("unshare", {"-rn", "true"})) {
            QSKIP("no network namespaces here (unshare -rn)");
        }
        QTemporaryDir dir;
        const QString out = dir.filePath("r");
        const CliResult r =
            runProgram("unshare",
                       {"-rn", "sh", "-c",
                        "echo '40000 40001' > /proc/sys/net/ipv4/ip_local_port_range && "
                        "echo 40000-40001 > /proc/sys/net/ipv4/ip_local_reserved_ports && "
                        "ip link set lo up && exec \"$0\" run \"$1\" --out \"$2\"",
                        COMMPROF_BIN_DIR "/commprof", writeMatrix(dir, kQuick), out},
                       120000);
        QCOMPARE(r.exitCode, 1);
        const QJsonObject cell = readJsonFile(cellFile(out, kQuickCell, "cell.json"));
        QVERIFY2(cell["failure"].toString().contains("no free loopback port"),
                 qPrintable(cell["failure"].toString()));
        QVERIFY2(QFile(cellFile(out, kQuickCell, "launcher.log")).open(QIODevice::ReadOnly),
                 "no launcher.log");
        QVERIFY(!QFile::exists(cellFile(out, kQuickCell, "rank0.json")));
    }

    // A rank that forges progress (another rank, a negative iteration, an infinite time,
    // fields of the run's own events, a 3 MB line): only its real events reach --json-progress,
    // with their own fields only.
    void forgedProgressIsNotRelayed() {
        QTemporaryDir dir;
        const QString forger = dir.filePath("commprof-rank");
        QVERIFY(writeText(
            forger,
            "#!/bin/sh\n"
            "echo 'junk {not json'\n"
            "echo '{\"event\":\"iteration\",\"rank\":1000000,\"iter\":1,\"of\":5,\"step_ms\":1}'\n"
            "echo '{\"event\":\"iteration\",\"rank\":0,\"iter\":-5,\"of\":5,\"step_ms\":1}'\n"
            "echo '{\"event\":\"iteration\",\"rank\":0,\"iter\":1,\"of\":5,\"step_ms\":1e999}'\n"
            "echo '{\"event\":\"iteration\",\"rank\":0,\"iter\":7,\"of\":5,\"step_ms\":1}'\n"
            "echo '{\"event\":\"cell\",\"rank\":0,\"id\":\"x\",\"state\":\"complete\"}'\n"
            "printf "
            "'{\"event\":\"iteration\",\"rank\":0,\"iter\":3,\"of\":5,\"step_ms\":1,\"p\":\"'\n"
            "head -c 3000000 /dev/zero | tr '\\0' x\n"
            "echo '\"}'\n"
            "echo '{\"event\":\"iteration\",\"rank\":0,\"iter\":2,\"of\":5,\"step_ms\":1.5,"
            "\"state\":\"complete\"}'\n"
            "exit 1\n",
            QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("COMMPROF_RANK", forger);
        const CliResult r =
            runCli("commprof",
                   {"run", writeMatrix(dir, kQuick), "--out", dir.filePath("r"), "--json-progress"},
                   120000, env);
        QCOMPARE(r.exitCode, 1);
        QList<QJsonObject> relayed;
        for (const QByteArray& line : r.out.split('\n')) {
            const QJsonObject o = QJsonDocument::fromJson(line).object();
            QVERIFY2(line.size() < 4096, "a long line was relayed");
            if (!o.isEmpty() && (o["event"].toString() != "cell" || o.contains("rank"))) {
                relayed << o;
            }
        }
        QCOMPARE(relayed.size(), 1);
        const QJsonObject e = relayed.first();
        QCOMPARE(e["rank"].toInt(), 0);
        QCOMPARE(e["iter"].toInt(), 2);
        QCOMPARE(e["step_ms"].toDouble(), 1.5);
        QVERIFY(!e.contains("state"));
        QCOMPARE(e["cell"].toString(), kQuickCell);
    }

    // --resume with another matrix would mix two matrices in one folder: refused, naming
    // run.json and the field, with nothing changed. The same cells with another timeout_s
    // continue.
    void resumeWithAnotherMatrixIsRefused() {
        QTemporaryDir dir;
        const QString out = dir.filePath("r");
        const QString first = writeMatrix(dir, kQuick, "first.yaml");
        QCOMPARE(runCli("commprof", {"run", first, "--out", out}).exitCode, 0);
        // The lock left out: a refused run rewrites its pid.
        const auto before = snapshot(out, {".lock"});
        const QString other =
            writeMatrix(dir, QString(kQuick).replace("iterations: 6", "iterations: 7"), "b.yaml");
        const CliResult r = runCli("commprof", {"run", other, "--out", out, "--resume"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("run.json records a run of another matrix") &&
                     r.err.contains("cells_sha256") && r.err.contains(other.toUtf8()),
                 r.err.constData());
        QCOMPARE(snapshot(out, {".lock"}), before);
        const QString longer =
            writeMatrix(dir, QString(kQuick).replace("timeout_s: 120", "timeout_s: 300"), "c.yaml");
        const CliResult same = runCli("commprof", {"run", longer, "--out", out, "--resume"});
        QVERIFY2(same.exitCode == 0 && same.err.contains("1 already complete"),
                 same.err.constData());
    }

    // A folder of unrelated files is refused as the workbench refuses it, and left as it was.
    void aFolderOfOtherFilesIsRefused() {
        QTemporaryDir dir;
        const QString out = dir.filePath("mine");
        QVERIFY(QDir().mkpath(out + "/photos"));
        QVERIFY(writeText(out + "/notes.txt", "mine\n"));
        // The lock left out: a refused run rewrites its pid.
        const auto before = snapshot(out, {".lock"});
        const CliResult r = runCli("commprof", {"run", writeMatrix(dir, kQuick), "--out", out});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains((out + " already holds other files").toUtf8()), r.err.constData());
        QCOMPARE(snapshot(out, {".lock"}), before);
        QVERIFY(!QFile::exists(out + "/.lock"));
    }

    // The results folder deleted mid-run: the run stops saying so and does not make it again.
    void aDeletedResultsFolderStopsTheRun() {
        QTemporaryDir dir;
        const QString out = dir.filePath("r");
        QProcess* run = startRun(this, {writeMatrix(dir, longMatrix(400)), "--out", out});
        QVERIFY(waitForIteration(*run, kLongCell, 3));
        QVERIFY(QDir(out).removeRecursively());
        QVERIFY(run->waitForFinished(120000));
        QCOMPARE(run->exitStatus(), QProcess::NormalExit);
        QCOMPARE(run->exitCode(), 1);
        const QByteArray err = run->readAllStandardError();
        QVERIFY2(err.contains(QString("the results folder %1 was deleted").arg(out).toUtf8()),
                 err.constData());
        QVERIFY(!QFileInfo::exists(out));
    }

    // RLIMIT_NPROC too low for the ranks' threads: the cell fails at once with the limit
    // named, instead of its ranks waiting in their thread pool until the deadline. Root is
    // not held to the limit, so the run is made as nobody.
    void aThreadLimitTooLowFailsTheCellAtOnce() {
        if (::getuid() != 0 || !runs("setpriv", {"--version"}) || !runs("prlimit", {"--version"})) {
            QSKIP("needs root, setpriv and prlimit to run as another user under a limit");
        }
        QTemporaryDir dir;
        QVERIFY(::chmod(QFile::encodeName(dir.path()).constData(), 0777) == 0);
        const QString matrix =
            writeMatrix(dir, QString(kQuick).replace("timeout_s: 120", "timeout_s: 90"));
        const QString out = dir.filePath("r");
        QElapsedTimer clock;
        clock.start();
        const CliResult r =
            runProgram("prlimit",
                       {"--nproc=3", "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                        COMMPROF_BIN_DIR "/commprof", "run", matrix, "--out", out},
                       120000);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(clock.elapsed() < 30000, qPrintable(QString::number(clock.elapsed())));
        const QJsonObject cell = readJsonFile(cellFile(out, kQuickCell, "cell.json"));
        QVERIFY2(cell["failure"].toString().contains("RLIMIT_NPROC (ulimit -u) is 3 threads"),
                 qPrintable(cell["failure"].toString() + r.err));
    }
};

QTEST_GUILESS_MAIN(TstRunHostile)
#include "tst_run_hostile.moc"
