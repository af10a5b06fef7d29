// SPDX-License-Identifier: GPL-3.0-or-later
// `commprof run` under faults and abuse (issue 20), on the real binaries: a rank that cannot
// start, the progress reader going away, a full disk, relative paths, two runs on one folder,
// links planted in the results folder, pid files naming processes the runner never started,
// and the secrets every rank of a cell is given.

#include "cli_runner.h"
#include "rank_files.h"
#include "run_helpers.h"
#include "runner/process_identity.h"
#include "runner/rank_pool.h"
#include "waiting_rank.h"

#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QJsonArray>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

using namespace commprof::runner;

namespace {

// One ws2 cell that runs for a while.
const QString kLong = "name: long\n"
                      "defaults: {iterations: 400, warmup: 2, batch_size: 8, timeout_s: 300}\n"
                      "models: [{name: tiny, params: 2e5}]\n"
                      "layers: [{name: gloo_cpu}]\n"
                      "world_sizes: [2]\n";
const QString kLongCell = "tiny_gloo_cpu_ws2_r0";

QByteArray environmentOf(qint64 pid) {
    QFile f(QString("/proc/%1/environ").arg(pid));
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QString environmentValue(const QByteArray& environ, const QByteArray& name) {
    for (const QByteArray& entry : environ.split('\0')) {
        if (entry.startsWith(name + "=")) {
            return QString::fromLatin1(entry.mid(name.size() + 1));
        }
    }
    return {};
}

bool alive(qint64 pid) {
    return processStartTime(pid) != 0;
}

// Writes until the file system refuses: ENOSPC, the last page of a tmpfs taken.
bool fillUp(const QString& dir) {
    const int fd =
        ::open(QFile::encodeName(dir + "/filler").constData(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) {
        return false;
    }
    const QByteArray block(1 << 16, 'x');
    for (std::size_t size = std::size_t(block.size()); size > 0;) {
        const ssize_t n = ::write(fd, block.constData(), size);
        if (n < 0 && errno == ENOSPC) {
            size /= 2;
        } else if (n < 0) {
            break;
        }
    }
    ::close(fd);
    return true;
}

} // namespace

class TstRunFaults : public QObject {
    Q_OBJECT
private slots:
    // Item 1: a rank that cannot start used to crash the runner (SIGSEGV). In the pool it is
    // exit 127 for that rank, the others are never started, and the pool finishes.
    void rankThatCannotStartFailsThePoolNotTheProcess_data() {
        QTest::addColumn<QString>("program");
        QTest::addColumn<QString>("workDir");
        QTest::newRow("missing program") << "/nonexistent/commprof-rank"
                                         << "";
        QTest::newRow("not executable") << "PLAIN"
                                        << "";
        QTest::newRow("working directory under a file") << rankBinary() << "PLAIN/sub";
    }
    void rankThatCannotStartFailsThePoolNotTheProcess() {
        QFETCH(QString, program);
        QFETCH(QString, workDir);
        QTemporaryDir dir;
        const QString plain = dir.filePath("plain");
        QFile f(plain);
        QVERIFY(f.open(QIODevice::WriteOnly) && f.write("not a program\n") > 0);
        f.close();
        PoolSpec spec;
        spec.program = program == "PLAIN" ? plain : program;
        spec.workDir = workDir.isEmpty() ? dir.path() : QString(workDir).replace("PLAIN", plain);
        spec.args = {"--params", "2e4", "--iterations", "2",
                     "--warmup", "0",   "--out",        spec.workDir};
        spec.worldSize = 2;
        spec.deadline = QDeadlineTimer(60000);
        RankPool pool;
        const PoolOutcome o = pool.runBlocking(spec);
        QVERIFY(!o.success);
        QCOMPARE(int(o.ranks.size()), 2);
        QCOMPARE(o.ranks[0].exitCode, 127);
        QVERIFY2(o.ranks[0].stderrTail.contains("failed to start"),
                 qPrintable(o.ranks[0].stderrTail));
        QCOMPARE(o.ranks[1].exitCode, 127);
        QVERIFY2(o.reason.startsWith("rank 0 failed to start"), qPrintable(o.reason));
    }

    // Item 1 through the CLI: each case the campaign found is refused up front, with a reason.
    void runThatCannotStartRanksIsRefused_data() {
        QTest::addColumn<QString>("rank");
        QTest::addColumn<QString>("out");
        QTest::addColumn<QString>("message");
        QTest::newRow("COMMPROF_RANK missing") << "/nonexistent"
                                               << "r"
                                               << "'/nonexistent'";
        QTest::newRow("--out names a file") << ""
                                            << "plain/r"
                                            << "is not a directory";
        QTest::newRow("--out read-only") << ""
                                         << "/proc/commprof-results"
                                         << "cannot create";
    }
    void runThatCannotStartRanksIsRefused() {
        QFETCH(QString, rank);
        QFETCH(QString, out);
        QFETCH(QString, message);
        QTemporaryDir dir;
        QFile plain(dir.filePath("plain"));
        QVERIFY(plain.open(QIODevice::WriteOnly) && plain.write("x") == 1);
        plain.close();
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        if (!rank.isEmpty()) {
            env.insert("COMMPROF_RANK", rank);
        }
        const QString outDir = out.startsWith('/') ? out : dir.filePath(out);
        const CliResult r =
            runCli("commprof", {"run", writeMatrix(dir, kQuick), "--out", outDir}, 120000, env);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(QString(r.err).contains(message), r.err.constData());
    }

    // Item 4, the runner's part: every rank of a cell gets the cell's secret store token (128
    // random bits, hex), a fresh one per cell, and every rank of the run the run's id.
    void everyRankCarriesItsCellsTokenAndTheRunId() {
        QTemporaryDir dir;
        const QString matrix =
            writeMatrix(dir, "name: tokens\ndefaults: {iterations: 60, warmup: 2, batch_size: 8}\n"
                             "models: [{name: a, params: 2e5}, {name: b, params: 2e5}]\n"
                             "layers: [{name: gloo_cpu}]\nworld_sizes: [2]\n");
        const QString out = dir.filePath("r");
        QProcess* run = startRun(this, {matrix, "--out", out});
        QMap<QString, QStringList> tokens, runIds; // cell -> per rank
        QByteArray seen;
        waitForProgress(
            *run, seen,
            [&](const QJsonObject& o) {
                const QString cell = o["cell"].toString();
                if (o["event"].toString() == "iteration" && !tokens.contains(cell)) {
                    for (int r = 0; r < 2; ++r) {
                        PidRecord rec;
                        if (readPidRecord(QString("%1/.pids/%2_rank%3.pid").arg(out, cell).arg(r),
                                          rec)) {
                            const QByteArray env = environmentOf(rec.pid);
                            tokens[cell] << environmentValue(env, "COMMPROF_STORE_TOKEN");
                            runIds[cell] << environmentValue(env, "COMMPROF_RUN_ID");
                        }
                    }
                }
                return tokens.size() == 2;
            },
            120000);
        QVERIFY(run->waitForFinished(180000));
        QCOMPARE(run->exitCode(), 0);
        QCOMPARE(tokens.size(), 2);
        const QRegularExpression hex128("^[0-9a-f]{32,}$");
        const QString runId = readJsonFile(out + "/run.json")["run_id"].toString();
        QVERIFY(hex128.match(runId).hasMatch());
        for (const QString& cell : tokens.keys()) {
            QCOMPARE(tokens[cell].size(), 2);
            QVERIFY2(hex128.match(tokens[cell][0]).hasMatch(), qPrintable(tokens[cell][0]));
            QCOMPARE(tokens[cell][1], tokens[cell][0]);
            QCOMPARE(runIds[cell], QStringList({runId, runId}));
            QVERIFY(tokens[cell][0] != runId);
        }
        QVERIFY(tokens.first()[0] != tokens.last()[0]);
    }

    // Item 5: `--json-progress | head -n 3` used to kill the runner by SIGPIPE (exit 141) with
    // its pid files left behind. The progress stops; the run finishes.
    void closedProgressPipeEndsTheProgressNotTheRun() {
        QTemporaryDir dir;
        const QString matrix =
            writeMatrix(dir, QString(kQuick).replace("world_sizes: [1]", "world_sizes: [1, 2]"));
        const QString out = dir.filePath("r");
        QProcess sh;
        sh.start("/bin/bash", {"-c",
                               "\"$0\" run \"$1\" --out \"$2\" --json-progress | head -n 3 "
                               ">/dev/null; exit ${PIPESTATUS[0]}",
                               COMMPROF_BIN_DIR "/commprof", matrix, out});
        QVERIFY(sh.waitForFinished(300000));
        QVERIFY2(sh.exitCode() == 0, sh.readAllStandardError().constData());
        for (const QString& cell : {kQuickCell, QString("tiny_gloo_cpu_ws2_r0")}) {
            QVERIFY(QFile::exists(QString("%1/cells/%2/manifest.json").arg(out, cell)));
        }
        QVERIFY(QDir(out + "/.pids").entryList({"*.pid"}).isEmpty());
    }

    // Item 5, the other half: Ctrl-C (through the self-pipe) ends the cell's ranks and the run.
    void interruptEndsTheRunCleanly() {
        QTemporaryDir dir;
        const QString out = dir.filePath("r");
        stopRunMidCell(this, writeMatrix(dir, kLong), out, kLongCell, SIGINT);
        if (QTest::currentTestFailed()) {
            return;
        }
        QVERIFY(QDir(out + "/.pids").entryList({"*.pid"}).isEmpty());
        // What the results say of it: stopped, not failed, in the JSON and in the CSV.
        const CliResult json = runCli("commprof", {"cells", out, "--json"});
        QCOMPARE(json.exitCode, 0);
        const QJsonArray cells = json.json()["cells"].toArray();
        QCOMPARE(cells.size(), 1);
        QCOMPARE(cells[0].toObject()["status"].toString(), QString("stopped"));
        QVERIFY2(cells[0].toObject()["reasons"].toArray().first().toString().startsWith(
                     "stopped before it ended"),
                 json.out.constData());
        const CliResult csv = runCli("commprof", {"cells", out, "--csv"});
        QCOMPARE(csv.exitCode, 0);
        QVERIFY2(csv.out.contains(QByteArray(kLongCell.toLatin1()) + ",stopped,"),
                 csv.out.constData());
    }

    // Item 6: the disk fills up after the rank wrote its file and before the runner wrote its
    // records. Nothing may be renamed over what was there (the cell.json of the start stays
    // intact), no manifest may appear, and the reason reaches stderr and the exit status. On a
    // tiny tmpfs as root; otherwise with a file-size limit of 0 on the runner.
    void fullDiskLeavesNoCompleteCellAndSaysWhy() {
        QTemporaryDir dir;
        const QString mnt = dir.filePath("mnt");
        QVERIFY(QDir().mkpath(mnt));
        const bool tmpfs =
            ::geteuid() == 0 &&
            QProcess::execute("mount", {"-t", "tmpfs", "-o", "size=4m", "commprof-full", mnt}) == 0;
        const auto unmount = qScopeGuard([&] {
            if (tmpfs) {
                QProcess::execute("umount", {"-l", mnt});
            }
        });
        const QString out = (tmpfs ? mnt : dir.path()) + "/r";
        const QString matrix = writeMatrix(
            dir, QString(kQuick).replace("iterations: 6", "iterations: 40"), "full.yaml");
        QProcess* run = startRun(this, {matrix, "--out", out});
        QVERIFY(waitForIteration(*run, kQuickCell, 2));
        const pid_t runner = pid_t(run->processId());
        QVERIFY(::kill(runner, SIGSTOP) == 0);
        // The rank finishes and writes its file; the stopped runner has not seen it yet.
        const QString cell = out + "/cells/" + kQuickCell;
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(cell + "/rank0.json"), 120000);
        const QByteArray before = [&] {
            QFile f(cell + "/cell.json");
            return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
        }();
        QVERIFY(readJsonFile(cell + "/cell.json")["status"].toString() == "running");
        if (tmpfs) {
            QVERIFY(fillUp(mnt));
        } else {
            const rlimit none{0, 0};
            QVERIFY(::prlimit(runner, RLIMIT_FSIZE, &none, nullptr) == 0);
        }
        QVERIFY(::kill(runner, SIGCONT) == 0);
        QVERIFY(run->waitForFinished(120000));
        const QString err = run->readAllStandardError();
        QFile after(cell + "/cell.json");
        QVERIFY(after.open(QIODevice::ReadOnly));
        QCOMPARE(after.readAll(), before);
        QVERIFY(!QFile::exists(cell + "/manifest.json"));
        QCOMPARE(run->exitStatus(), QProcess::NormalExit);
        QCOMPARE(run->exitCode(), 1);
        QVERIFY2(err.contains(tmpfs ? "No space left on device" : "File too large"),
                 qPrintable(err));
        QVERIFY2(err.contains("could not write " + kQuickCell + ": "), qPrintable(err));
        QVERIFY2(err.contains("0 complete, 1 failed"), qPrintable(err));
    }

    // Item 7: a relative --out (the README's own usage) and a relative COMMPROF_RANK, from the
    // directory the user stands in; the ranks run elsewhere and still find both.
    void relativePathsWorkFromAnyDirectory() {
        QTemporaryDir dir;
        writeMatrix(dir, kQuick, "m.yaml");
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("COMMPROF_RANK", QDir(dir.path()).relativeFilePath(rankBinary()));
        p.setProcessEnvironment(env);
        p.setWorkingDirectory(dir.path());
        p.start(COMMPROF_BIN_DIR "/commprof", {"run", "m.yaml", "--out", "results/rel"});
        QVERIFY(p.waitForFinished(120000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        const QString cell = dir.filePath("results/rel/cells/" + kQuickCell);
        QVERIFY(QFile::exists(cell + "/manifest.json"));
        QCOMPARE(readJsonFile(cell + "/rank0.json")["cell_id"].toString(), kQuickCell);
    }

    // Item 8: a second run on a folder in use used to end the first's ranks and move its
    // cells aside. It is refused, naming the first's pid, with or without --resume; once the
    // first has ended the folder is free again.
    void secondRunOnTheSameFolderIsRefused() {
        QTemporaryDir dir;
        const QString out = dir.filePath("r");
        const QString matrix = writeMatrix(dir, kLong);
        QProcess* first = startRun(this, {matrix, "--out", out});
        QVERIFY(waitForIteration(*first, kLongCell, 3));
        const QList<PidRecord> ranks = pidRecords(out);
        QCOMPARE(ranks.size(), 2);
        for (const QStringList& extra : {QStringList{}, QStringList{"--resume"}}) {
            const CliResult second =
                runCli("commprof", QStringList{"run", matrix, "--out", out} + extra, 60000);
            QCOMPARE(second.exitCode, 2);
            QVERIFY2(QString(second.err).contains(QString("pid %1").arg(first->processId())),
                     second.err.constData());
            for (const PidRecord& r : ranks) {
                QVERIFY(stillRunning(r));
            }
            QVERIFY(!QDir(out + "/.aside").exists());
        }
        first->terminate(); // SIGTERM: the first run stops its cell cleanly
        QVERIFY(first->waitForFinished(60000));
        QCOMPARE(first->exitCode(), 1);
        const CliResult third = runCli(
            "commprof", {"run", writeMatrix(dir, kQuick, "quick.yaml"), "--out", out}, 120000);
        QVERIFY2(third.exitCode == 0, third.err.constData());
    }

    // Item 14: a link planted at an entry of the results folder would redirect the run's
    // writes, moves and deletes. The run is refused, naming the link; the target is untouched.
    void linksInTheResultsFolderAreRefused_data() {
        QTest::addColumn<QString>("entry");
        QTest::addColumn<bool>("toFile");
        QTest::newRow(".pids") << ".pids" << false;
        QTest::newRow(".aside") << ".aside" << false;
        QTest::newRow("cells") << "cells" << false;
        QTest::newRow("run.json") << "run.json" << true;
        QTest::newRow(".lock") << ".lock" << true;
        QTest::newRow("a cell") << "cells/" + kQuickCell << false;
    }
    void linksInTheResultsFolderAreRefused() {
        QFETCH(QString, entry);
        QFETCH(bool, toFile);
        QTemporaryDir dir;
        const QString out = dir.filePath("r");
        const QString target = dir.filePath("elsewhere");
        QVERIFY(QDir().mkpath(target));
        for (const auto& [name, content] :
             {std::pair{"keep.txt", "precious\n"}, std::pair{"other_rank0.pid", "999999 1\n"},
              std::pair{"file", "precious too\n"}}) {
            QFile f(target + "/" + name);
            QVERIFY(f.open(QIODevice::WriteOnly) && f.write(content) > 0);
        }
        // An earlier attempt of the cell: what a run would move aside.
        QVERIFY(QDir().mkpath(out + "/cells/" + kQuickCell));
        QVERIFY(
            writeJsonFile(out + "/cells/" + kQuickCell + "/cell.json", {{"status", "running"}}));
        if (entry.startsWith("cells")) {
            QVERIFY(QDir(out + "/" + entry).removeRecursively());
        }
        QVERIFY(QFile::link(toFile ? target + "/file" : target, out + "/" + entry));
        const auto before = snapshot(target);
        const CliResult r =
            runCli("commprof", {"run", writeMatrix(dir, kQuick), "--out", out}, 120000);
        QCOMPARE(snapshot(target), before);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(QString(r.err).contains(out + "/" + entry + ": a symbolic link"),
                 r.err.constData());
    }

    // Item 15: pid files naming a process the runner never started (an unrelated `sleep`
    // with its real start time, in the old and the new record format, and a commprof-rank of
    // another run) make neither `run` nor `probe --cleanup` signal it.
    void plantedPidFilesNeverEndOtherProcesses() {
        QTemporaryDir dir;
        const QString out = dir.filePath("r");
        qint64 sleeper = 0;
        QVERIFY(QProcess::startDetached("/bin/sleep", {"600"}, {}, &sleeper));
        const qint64 otherRank = startWaitingRank(randomToken(), dir.path());
        QVERIFY(otherRank > 0);
        QTRY_VERIFY(alive(sleeper) && alive(otherRank));
        const auto cleanup = qScopeGuard([&] {
            ::kill(pid_t(sleeper), SIGKILL);
            ::kill(pid_t(otherRank), SIGKILL);
        });
        const auto plant = [&] {
            QVERIFY(QDir().mkpath(out + "/.pids"));
            const quint64 started = processStartTime(sleeper);
            for (const auto& [name, text] :
                 {std::pair{QString("old_rank0.pid"), QString("%1 %2\n").arg(sleeper).arg(started)},
                  std::pair{QString("new_rank0.pid"),
                            QString("%1 %2 %3\n").arg(sleeper).arg(started).arg(randomToken())},
                  std::pair{QString("rank_of_another_run.pid"),
                            QString("%1 %2 %3\n")
                                .arg(otherRank)
                                .arg(processStartTime(otherRank))
                                .arg(randomToken())}}) {
                QFile f(out + "/.pids/" + name);
                QVERIFY(f.open(QIODevice::WriteOnly) && f.write(text.toUtf8()) > 0);
            }
        };
        plant();
        const CliResult r =
            runCli("commprof", {"run", writeMatrix(dir, kQuick), "--out", out}, 120000);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(alive(sleeper));
        QVERIFY(alive(otherRank));
        plant();
        const CliResult p = runCli(
            "commprof",
            {"probe", "--json", "--results", out, "--cleanup", "--no-formation", "--ports", "1-1"},
            120000);
        QVERIFY2(!p.json().isEmpty(), p.err.constData());
        QVERIFY(p.json()["stale_ranks"].toArray().isEmpty());
        QVERIFY(alive(sleeper));
        QVERIFY(alive(otherRank));
    }
};

QTEST_GUILESS_MAIN(TstRunFaults)
#include "tst_run_faults.moc"
