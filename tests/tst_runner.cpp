// SPDX-License-Identifier: GPL-3.0-or-later
// The matrix runner over real rank processes: complete cells, a rank killed mid-cell, the
// runner itself killed and resumed, a port clash.

#include "cli_runner.h"
#include "rank_files.h"
#include "run_helpers.h"
#include "runner/process_identity.h"
#include "runner/rank_pool.h"
#include "waiting_rank.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonArray>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <csignal>

using namespace commprof::runner;

namespace {

// Two cells: a long ws2 cell first, then a short ws1 cell.
const QString kLongThenShort =
    "name: kill_test\n"
    "defaults: {iterations: 400, warmup: 2, batch_size: 8, timeout_s: 120}\n"
    "models: [{name: tiny, params: 2e5}]\n"
    "layers: [{name: gloo_cpu, overrides: {iterations: 400, warmup: 2, batch_size: 8, timeout_s: "
    "120}}]\n"
    "world_sizes: [2, 1]\n";

// A short ws1 cell first, then a long ws2 cell.
const QString kShortThenLong = "name: resume_test\n"
                               "models: [{name: tiny, params: 2e5}]\n"
                               "layers: [{name: gloo_cpu, overrides: {iterations: 400, warmup: 2, "
                               "batch_size: 8, timeout_s: 120}}]\n"
                               "world_sizes: [1, 2]\n"
                               "exclude: []\n";

// Two ranks of a small model writing into dir, for the pool tests that vary only the length.
PoolSpec twoRankSpec(const QString& dir, const char* iterations) {
    PoolSpec spec;
    spec.program = rankBinary();
    spec.args = {"--params",  "2e5", "--iterations", iterations, "--warmup", "1",
                 "--threads", "1",   "--out",        dir};
    spec.worldSize = 2;
    spec.workDir = dir;
    return spec;
}

} // namespace

class TstRunner : public QObject {
    Q_OBJECT
private slots:
    void smokeRunCompletes() {
        QTemporaryDir out;
        const CliResult r =
            runCli("commprof", {"run", COMMPROF_SOURCE_DIR "/configs/experiments/smoke.yaml",
                                "--out", out.path(), "--json-progress"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QSet<QString> ranksSeen;
        for (const QByteArray& line : r.out.split('\n')) {
            const QJsonObject o = QJsonDocument::fromJson(line).object();
            if (o["event"].toString() == "iteration") {
                ranksSeen << QString("%1/%2").arg(o["cell"].toString()).arg(o["rank"].toInt());
            }
        }
        QCOMPARE(ranksSeen.size(), 3); // ws1: rank 0; ws2: ranks 0 and 1
        for (const QString& id :
             {QString("mlp2m_gloo_cpu_ws1_r0"), QString("mlp2m_gloo_cpu_ws2_r0")}) {
            const QString dir = out.filePath("cells/" + id);
            const QJsonObject manifest = readJsonFile(dir + "/manifest.json");
            QCOMPARE(manifest["cell_id"].toString(), id);
            QCOMPARE(readJsonFile(dir + "/cell.json")["status"].toString(), QString("complete"));
            QVERIFY(QFile::exists(dir + "/trace_rank0.json.gz"));
            QCOMPARE(readJsonFile(dir + "/rank0.json")["cell_id"].toString(), id);
        }
        QVERIFY(QFile::exists(out.filePath("run.json")));
        QVERIFY(pidRecords(out.path()).isEmpty());

        // Calibration: predicted against measured peaks, and a refit that covers every cell.
        const QString profile = out.filePath("refit.yaml");
        const CliResult cal =
            runCli("commprof", {"calibrate", out.path(), "--json", "--write-profile", profile});
        QVERIFY2(cal.exitCode == 0, cal.err.constData());
        const QJsonObject c = cal.json();
        QCOMPARE(c["cells"].toArray().size(), 5); // two DDP cells, three sweeps
        QVERIFY(c["completed_cells_infeasible_after_refit"].toArray().isEmpty());
        const double before = c["process_baseline_mib_before"].toDouble() * 1048576.0;
        const double refit = c["process_baseline_mib_refit"].toDouble() * 1048576.0;
        for (const QJsonValue v : c["cells"].toArray()) {
            const QJsonObject cell = v.toObject();
            QVERIFY(cell["measured_host_bytes_per_rank"].toDouble() > 50e6);
            QVERIFY(cell["predicted_host_bytes_per_rank"].toDouble() - before + refit >=
                    cell["measured_host_bytes_per_rank"].toDouble() - 1);
        }
        const CliResult replan =
            runCli("commprof", {"plan", COMMPROF_SOURCE_DIR "/configs/experiments/smoke.yaml",
                                "--profile", profile, "--host-budget-gib", "8", "--json"});
        QCOMPARE(replan.exitCode, 0);
        for (const QJsonValue v : replan.json()["cells"].toArray()) {
            QVERIFY(v.toObject()["feasible"].toBool());
        }
    }

    void killedRankLeavesNoManifestAndTheRunMovesOn() {
        QTemporaryDir out;
        const QString matrix = writeMatrix(out, kLongThenShort);
        QProcess* run = startRun(this, {matrix, "--out", out.filePath("r")});
        QVERIFY(waitForIteration(*run, "tiny_gloo_cpu_ws2_r0", 3));
        const QList<PidRecord> pids = pidRecords(out.filePath("r"));
        QCOMPARE(pids.size(), 2);
        PidRecord victim, survivor;
        for (const PidRecord& r : pids) {
            (r.path.endsWith("rank1.pid") ? victim : survivor) = r;
        }
        QVERIFY(::kill(pid_t(victim.pid), SIGKILL) == 0);
        QVERIFY(run->waitForFinished(120000));
        QCOMPARE(run->exitCode(), 1);
        const QString dir = out.filePath("r/cells/tiny_gloo_cpu_ws2_r0");
        QVERIFY(!QFile::exists(dir + "/manifest.json"));
        QCOMPARE(readJsonFile(dir + "/cell.json")["status"].toString(), QString("failed"));
        QFile log(dir + "/launcher.log");
        QVERIFY(log.open(QIODevice::ReadOnly));
        const QString text = log.readAll();
        QVERIFY2(text.contains("rank 1: killed by a signal"), qPrintable(text));
        QVERIFY(!stillRunning(survivor));
        // The run went on to the next cell.
        QVERIFY(QFile::exists(out.filePath("r/cells/tiny_gloo_cpu_ws1_r0/manifest.json")));
    }

    void killedRunnerIsResumedCleanly() {
        QTemporaryDir out;
        const QString matrix = writeMatrix(out, kShortThenLong);
        const QString results = out.filePath("r");
        QProcess* run = startRun(this, {matrix, "--out", results});
        QVERIFY(waitForIteration(*run, "tiny_gloo_cpu_ws2_r0", 3));
        const QString doneManifest = results + "/cells/tiny_gloo_cpu_ws1_r0/manifest.json";
        QVERIFY(QFile::exists(doneManifest));
        const QDateTime doneAt = QFileInfo(doneManifest).lastModified();
        const QList<PidRecord> orphans = pidRecords(results);
        QCOMPARE(orphans.size(), 2);
        ::kill(pid_t(run->processId()), SIGKILL);
        run->waitForFinished();
        // Ranks may outlive their launcher (or die of SIGPIPE on their next progress line).
        const CliResult resumed =
            runCli("commprof", {"run", matrix, "--out", results, "--resume"}, 300000);
        QVERIFY2(resumed.exitCode == 0, resumed.err.constData());
        for (const PidRecord& r : orphans) {
            QVERIFY(!stillRunning(r)); // none is left once the next launch has started
        }
        QCOMPARE(QFileInfo(doneManifest).lastModified(), doneAt); // not re-run
        QVERIFY(QString(resumed.err).contains("tiny_gloo_cpu_ws1_r0") &&
                QString(resumed.err).contains("complete in an earlier run"));
        const QString again = results + "/cells/tiny_gloo_cpu_ws2_r0";
        QVERIFY(QFile::exists(again + "/manifest.json"));
        // The interrupted attempt was moved aside, not mixed in.
        const QStringList aside =
            QDir(results + "/.aside").entryList(QDir::Dirs | QDir::NoDotAndDotDot);
        QCOMPARE(aside.size(), 1);
        QVERIFY(aside[0].startsWith("tiny_gloo_cpu_ws2_r0."));
        QVERIFY(!QFile::exists(results + "/.aside/" + aside[0] + "/manifest.json"));
        QFile log(again + "/launcher.log");
        QVERIFY(log.open(QIODevice::ReadOnly));
        QCOMPARE(QString(log.readAll()).count("cell tiny_gloo_cpu_ws2_r0:"), 1);
    }

    void portClashPicksAnotherPort() {
        QTcpServer squatter;
        QVERIFY(squatter.listen(QHostAddress::LocalHost, 0));
        QTemporaryDir dir;
        PoolSpec spec = twoRankSpec(dir.path(), "3");
        spec.firstPort = squatter.serverPort();
        spec.deadline = QDeadlineTimer(120000);
        RankPool pool;
        const PoolOutcome o = pool.runBlocking(spec);
        QVERIFY2(o.success, qPrintable(o.reason));
        QCOMPARE(o.attempts, 2);
        QVERIFY(o.port != int(squatter.serverPort()));
    }

    void pidFilesEndOnlyWhatTheRunnerStarted() {
        QTemporaryDir dir;
        const QString runId = randomToken();
        const qint64 rank = startWaitingRank(runId, dir.path());
        QVERIFY(rank > 0);
        QTRY_VERIFY(processStartTime(rank) != 0);
        QVERIFY(writePidRecord(dir.filePath("cell_rank0.pid"), rank, runId).isEmpty());
        // A record whose start time does not match is a reused pid: it must be left alone.
        qint64 other = 0;
        QVERIFY(QProcess::startDetached("/bin/sleep", {"60"}, {}, &other));
        QFile stale(dir.filePath("cell_rank1.pid"));
        QVERIFY(stale.open(QIODevice::WriteOnly));
        stale.write(QString("%1 1 %2\n").arg(other).arg(runId).toUtf8());
        stale.close();
        QCOMPARE(endRecordedProcesses(dir.path(), 2000), 1);
        QTRY_VERIFY(processStartTime(rank) == 0);
        QVERIFY(processStartTime(other) != 0);
        ::kill(pid_t(other), SIGKILL);
        QVERIFY(QDir(dir.path()).entryList({"*.pid"}).isEmpty());
    }

    void deadlineEndsEveryRank() {
        QTemporaryDir dir;
        PoolSpec spec = twoRankSpec(dir.path(), "100000");
        spec.graceMs = 1000;
        spec.deadline = QDeadlineTimer(4000);
        QElapsedTimer t;
        t.start();
        RankPool pool;
        const PoolOutcome o = pool.runBlocking(spec);
        QVERIFY(!o.success);
        QVERIFY(o.timedOut);
        QVERIFY(t.elapsed() < 15000);
        QCOMPARE(int(o.ranks.size()), 2);
    }
};

QTEST_GUILESS_MAIN(TstRunner)
#include "tst_runner.moc"
