// SPDX-License-Identifier: GPL-3.0-or-later
// Ranks forked by a run's fork server (commprof-rank --fork-server, through commprof-rank-fork):
// real ranks over gloo, the same gradients bit for bit as ranks started by exec and as Python
// DDP's; a server that is not single-threaded refuses to fork, and a rank whose environment
// differs is exec'd, each with its reason; a rank ends with its client; `commprof run` forks
// every cell's ranks from one server and records how they were started.

#include "cli_runner.h"
#include "pool_helpers.h"
#include "run_helpers.h"
#include "runner/fork_server.h"
#include "runner/process_identity.h"
#include "runner/rank_starts.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <csignal>
#include <ctime>
#include <sys/time.h>

using commprof::runner::ForkServer;
using commprof::runner::PoolOutcome;
using commprof::runner::PoolSpec;
using commprof::runner::RankPool;

namespace {

const QString kRunId = "forkservertest";

QProcessEnvironment
serverEnv(const QProcessEnvironment& base = QProcessEnvironment::systemEnvironment()) {
    QProcessEnvironment env = base;
    env.insert("COMMPROF_RUN_ID", kRunId);
    return env;
}

QStringList model(int iterations = 6) {
    return {"--params",          "3e5", "--iterations",    QString::number(iterations),
            "--warmup",          "1",   "--batch-size",    "8",
            "--threads",         "1",   "--bucket-cap-mb", "0.25",
            "--first-bucket-mb", "1"};
}

// A pool of WORLD ranks, through SERVER's client when it is given, else by exec.
PoolSpec poolSpec(const QString& dir, int world, const QStringList& args,
                  const ForkServer* server) {
    PoolSpec spec;
    spec.program = rankBinary();
    spec.args =
        args +
        QStringList{"--out", dir, "--collective-timeout-s", "60", "--rendezvous-timeout-s", "60"};
    if (server) {
        spec.args = server->arguments(spec.program, spec.args);
        spec.program = server->program();
    }
    spec.worldSize = world;
    spec.workDir = dir;
    spec.runId = kRunId;
    spec.deadline = QDeadlineTimer(300000);
    return spec;
}

QByteArray bytesOf(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// The pids of PARENT's children (/proc/PID/task/PID/children: a single-threaded parent).
QList<qint64> childrenOf(qint64 parent) {
    QList<qint64> out;
    for (const QByteArray& w :
         bytesOf(QString("/proc/%1/task/%1/children").arg(parent)).trimmed().split(' ')) {
        if (!w.isEmpty()) {
            out << w.toLongLong();
        }
    }
    return out;
}

bool gone(qint64 pid, int waitMs) {
    QDeadlineTimer deadline(waitMs);
    while (!deadline.hasExpired()) {
        if (commprof::runner::processStartTime(pid) == 0) {
            return true;
        }
        QThread::msleep(20);
    }
    return false;
}

QString cellLog(const QString& out, const QString& cell) {
    return QString::fromUtf8(bytesOf(out + "/cells/" + cell + "/launcher.log"));
}

// The fork server `commprof run` (pid RUN) started: its child whose command line holds
// --fork-server; 0 when it has none.
qint64 forkServerOf(qint64 run) {
    for (const QString& entry : QDir("/proc").entryList(QDir::Dirs)) {
        bool number = false;
        const qint64 pid = entry.toLongLong(&number);
        if (!number) {
            continue;
        }
        const QByteArray stat = bytesOf(QString("/proc/%1/stat").arg(pid));
        const QList<QByteArray> f = stat.mid(stat.lastIndexOf(')') + 2).split(' ');
        if (f.size() > 1 && f[1].toLongLong() == run &&
            bytesOf(QString("/proc/%1/cmdline").arg(pid)).contains("--fork-server")) {
            return pid;
        }
    }
    return 0;
}

// Three 2-rank cells whose ranks take long enough (a straggler planted on rank 0) for the
// server to be signalled while the first one runs; every cell after it must run by exec.
struct ServerSignalled {
    QStringList cells; // in the order they ran
    qint64 server = 0;
    QString stderrText;
    int exitCode = -1;
};

ServerSignalled runAndSignalServer(const QTemporaryDir& dir, int signal) {
    ServerSignalled out;
    const QString matrix = writeMatrix(
        dir, QString(kQuick).replace("world_sizes: [1]", "world_sizes: [2]\nrepeats: 3"));
    QProcess run;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove("COMMPROF_FORK_SERVER");
    env.insert("COMMPROF_DELAY_RANK", "0:300");
    run.setProcessEnvironment(env);
    run.start(COMMPROF_BIN_DIR "/commprof",
              {"run", matrix, "--out", dir.filePath("out"), "--json-progress"});
    QByteArray seen;
    QString first;
    const bool midCell = waitForProgress(
        run, seen,
        [&](const QJsonObject& o) {
            if (o["event"].toString() == "cell" && o["state"].toString() == "running" &&
                first.isEmpty()) {
                first = o["id"].toString();
            }
            return !first.isEmpty() && o["cell"].toString() == first &&
                   o["event"].toString() == "iteration" && o["iter"].toInt() >= 3;
        },
        120000);
    out.server = forkServerOf(run.processId());
    if (midCell && out.server > 0) {
        ::kill(pid_t(out.server), signal);
    }
    if (!run.waitForFinished(600000)) {
        run.kill();
        run.waitForFinished();
    }
    out.exitCode = run.exitStatus() == QProcess::NormalExit ? run.exitCode() : -1;
    seen += run.readAllStandardOutput();
    for (const QByteArray& line : seen.split('\n')) {
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        if (o["event"].toString() == "cell" && o["state"].toString() == "running") {
            out.cells << o["id"].toString();
        }
    }
    out.stderrText = QString::fromUtf8(run.readAllStandardError());
    return out;
}

// What a signalled server must leave: the cell it served fails naming it (not its deadline),
// the run's log names it, and every later cell runs by exec and says so, with the reason.
void checkServerNamed(const QTemporaryDir& dir, const ServerSignalled& r, const QString& named) {
    QVERIFY2(r.server > 0, "the run started no fork server");
    QCOMPARE(r.cells.size(), 3);
    QVERIFY2(gone(r.server, 10000), "the signalled server was not ended");
    const QString pid = QString("the run's fork server (pid %1) ").arg(r.server);
    QVERIFY2(r.stderrText.contains("commprof: " + pid + named) &&
                 r.stderrText.contains("ranks are started by exec from now on"),
             qPrintable(r.stderrText));
    QCOMPARE(r.exitCode, 1); // the first cell failed
    const QString out = dir.filePath("out/cells/");
    const QJsonObject failed = readJsonFile(out + r.cells[0] + "/cell.json");
    QCOMPARE(failed["status"].toString(), QString("failed"));
    QVERIFY2(failed["failure"].toString().startsWith(pid + named) &&
                 !failed["failure"].toString().contains("deadline"),
             qPrintable(failed["failure"].toString()));
    QCOMPARE(failed["launcher"]["ranks_started_by"].toString(), QString("fork"));
    for (const QString& cell : r.cells.mid(1)) {
        const QJsonObject m = readJsonFile(out + cell + "/manifest.json");
        QCOMPARE(m["launcher"]["ranks_started_by"].toString(), QString("exec"));
        QVERIFY2(m["launcher"]["exec_reason"].toString().startsWith(pid + named),
                 qPrintable(m["launcher"]["exec_reason"].toString()));
        const QJsonObject record = readJsonFile(out + cell + "/cell.json");
        QCOMPARE(record["launcher"]["ranks_started_by"].toString(), QString("exec"));
        const QString log = cellLog(dir.filePath("out"), cell);
        QVERIFY2(log.contains("ranks started by exec: " + pid + named) &&
                     !log.contains("forked from") && !log.contains("(pid 0)"),
                 qPrintable(log));
    }
}

} // namespace

class TstForkServer : public QObject {
    Q_OBJECT
private slots:
    // The server is opt-in: on for this suite's servers and ranks alike (a rank whose
    // environment differs from the server's is exec'd).
    void initTestCase() { qunsetenv("COMMPROF_FORK_SERVER"); }

    // A runner killed with SIGKILL leaves its server's folder behind; the next server start
    // removes it, and never a live run's, an older commprof's that may be live, nor a folder
    // without a socket younger than an hour. Folders made here by hand under a TMPDIR of the
    // test's own; a pid known dead is that of a process this test started and reaped.
    void aKilledRunnersFolderGoesAtTheNextStart() {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QByteArray savedTmp = qgetenv("TMPDIR");
        qputenv("TMPDIR", QFile::encodeName(tmp.path()));
        QProcess probe;
        probe.start("true", {});
        QVERIFY(probe.waitForStarted());
        const qint64 reaped = probe.processId();
        QVERIFY(probe.waitForFinished(10000));
        const QDir t(tmp.path());
        const auto make = [&](const QString& name, bool socket, int ageS) {
            QVERIFY(t.mkpath(name));
            if (socket) {
                QFile f(t.filePath(name + "/ranks.sock"));
                QVERIFY(f.open(QIODevice::WriteOnly));
            }
            const time_t when = time(nullptr) - ageS;
            const timeval times[2] = {{when, 0}, {when, 0}};
            QVERIFY(::utimes(QFile::encodeName(t.filePath(name)).constData(), times) == 0);
        };
        const QString dead = QString("commprof-fork-%1-aaaaaa").arg(reaped);
        const QString live =
            QString("commprof-fork-%1-bbbbbb").arg(QCoreApplication::applicationPid());
        make(dead, true, 10);
        make(live, true, 7200);
        make("commprof-fork-oldsok", true, 7200);   // an older commprof's, no one listening
        make("commprof-fork-oldold", false, 7200);  // no socket, two hours old
        make("commprof-fork-oldnew", false, 60);    // no socket, a minute old: may be starting
        make("somebody-elses-folder", false, 7200); // not commprof's
        QCOMPARE(commprof::runner::removeStaleForkFolders(), 3);
        QVERIFY(!t.exists(dead));
        QVERIFY(t.exists(live));
        QVERIFY(!t.exists("commprof-fork-oldsok"));
        QVERIFY(!t.exists("commprof-fork-oldold"));
        QVERIFY(t.exists("commprof-fork-oldnew"));
        QVERIFY(t.exists("somebody-elses-folder"));
        // A server started now makes its own folder named by this process, and sweeps first.
        make(dead, true, 10);
        {
            ForkServer server;
            QVERIFY2(server.start(rankBinary(), serverEnv()), qPrintable(server.reason()));
            QVERIFY(!t.exists(dead));
            QCOMPARE(
                t.entryList({QString("commprof-fork-%1-*").arg(QCoreApplication::applicationPid())},
                            QDir::Dirs)
                    .size(),
                2); // the hand-made live one and the server's
        }
        if (savedTmp.isEmpty()) {
            qunsetenv("TMPDIR");
        } else {
            qputenv("TMPDIR", savedTmp);
        }
    }

    // The same cell, its ranks forked and exec'd: every reduced gradient and the final
    // parameters the same bytes, the buckets the same, and the forked ranks' gradients equal to
    // Python DDP's (tests/hook_reference.py).
    void forkedRanksEqualExecdRanks() {
        ForkServer server;
        QVERIFY2(server.start(rankBinary(), serverEnv()), qPrintable(server.reason()));
        QTemporaryDir forked;
        QTemporaryDir execd;
        const QStringList args = model() + QStringList{"--dump-grads"};
        RankPool forkPool;
        const PoolOutcome f = forkPool.runBlocking(poolSpec(forked.path(), 2, args, &server));
        QVERIFY2(f.success, qPrintable(poolFailure(f)));
        for (const auto& r : f.ranks) {
            QVERIFY2(!r.stderrTail.contains("started by exec"), qPrintable(r.stderrTail));
        }
        RankPool execPool;
        const PoolOutcome e = execPool.runBlocking(poolSpec(execd.path(), 2, args, nullptr));
        QVERIFY2(e.success, qPrintable(poolFailure(e)));
        for (int r = 0; r < 2; ++r) {
            for (const QString& name : {QString("grads_rank%1.pt"), QString("params_rank%1.pt")}) {
                const QByteArray a = bytesOf(forked.filePath(name.arg(r)));
                QVERIFY2(!a.isEmpty(), qPrintable(name.arg(r)));
                QVERIFY2(a == bytesOf(execd.filePath(name.arg(r))), qPrintable(name.arg(r)));
            }
            const QJsonObject a = readJsonFile(forked.filePath(QString("rank%1.json").arg(r)));
            const QJsonObject b = readJsonFile(execd.filePath(QString("rank%1.json").arg(r)));
            QVERIFY(!a["buckets"].toArray().isEmpty());
            QCOMPARE(a["param_checksum"], b["param_checksum"]);
            QCOMPARE(a["buckets"].toArray().size(), b["buckets"].toArray().size());
            for (qsizetype i = 0; i < a["buckets"].toArray().size(); ++i) {
                const QJsonObject x = a["buckets"].toArray()[i].toObject();
                const QJsonObject y = b["buckets"].toArray()[i].toObject();
                for (const char* key : {"iter", "index", "bytes", "wire_bytes", "nparams"}) {
                    QCOMPARE(x[key], y[key]);
                }
            }
        }
        QProcess python;
        python.start("/usr/bin/python3",
                     {COMMPROF_SOURCE_DIR "/tests/hook_reference.py", forked.path()});
        QVERIFY(python.waitForFinished(300000));
        if (python.exitCode() != 0) {
            const QByteArray err = python.readAllStandardError();
            if (err.contains("No module named 'torch'") &&
                !qEnvironmentVariableIsSet("COMMPROF_REQUIRE_PYTORCH")) {
                QSKIP("/usr/bin/python3 has no torch: no Python DDP to compare with");
            }
            QFAIL(err.right(4000).constData());
        }
        const QJsonObject ref = QJsonDocument::fromJson(python.readAllStandardOutput()).object();
        QVERIFY2(ref["bitwise_equal"].toBool(),
                 QJsonDocument(ref).toJson(QJsonDocument::Compact).constData());
    }

    // A thread in the server (here a library's, started as it is loaded) makes any fork unsound:
    // the server refuses at once and says why, and the runner execs the ranks.
    void aThreadedServerRefusesToFork() {
        ForkServer server;
        QProcessEnvironment env = serverEnv();
        env.insert("LD_PRELOAD", COMMPROF_THREAD_SHIM);
        QVERIFY(!server.start(rankBinary(), env));
        QVERIFY2(server.reason().contains("the server runs 2 threads"),
                 qPrintable(server.reason()));
    }

    // A rank whose environment differs from the server's in more than the per-rank variables
    // (a variable read as libraries load) is exec'd by its client, which says why on stderr, and
    // the cell runs as it would have.
    void aRankWithAnotherEnvironmentIsExecd() {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove("OMP_NUM_THREADS");
        ForkServer server;
        QVERIFY2(server.start(rankBinary(), serverEnv(env)), qPrintable(server.reason()));
        QTemporaryDir dir;
        PoolSpec spec = poolSpec(dir.path(), 2, model(), &server);
        spec.env = env;
        spec.env.insert("OMP_NUM_THREADS", "1");
        RankPool pool;
        const PoolOutcome out = pool.runBlocking(spec);
        QVERIFY2(out.success, qPrintable(poolFailure(out)));
        for (const auto& r : out.ranks) {
            QVERIFY2(r.stderrTail.contains("started by exec: the rank's environment differs from "
                                           "the server's in OMP_NUM_THREADS"),
                     qPrintable(r.stderrTail));
        }
    }

    // A rank must not outlive what its launcher started: the client killed with SIGKILL (as a
    // stale-rank sweep's last resort does), the forked rank is ended by the server; and the
    // client's pid record is one a later run may end.
    void aRankEndsWithItsClient() {
        ForkServer server;
        QVERIFY2(server.start(rankBinary(), serverEnv()), qPrintable(server.reason()));
        QTemporaryDir dir;
        PoolSpec spec = poolSpec(dir.path(), 2, model(100000), &server);
        spec.pidDir = dir.filePath("pids");
        spec.pidTag = "cell_";
        RankPool pool;
        bool iterating = false;
        QObject::connect(&pool, &RankPool::progress,
                         [&](int, const QJsonObject& e) { iterating = iterating || !e.isEmpty(); });
        PoolOutcome outcome;
        QObject::connect(&pool, &RankPool::finished, [&](const PoolOutcome& o) { outcome = o; });
        pool.start(spec);
        QTRY_VERIFY_WITH_TIMEOUT(iterating, 120000);
        const QList<qint64> ranks = childrenOf(server.pid());
        QCOMPARE(ranks.size(), 2);
        commprof::runner::PidRecord record;
        QVERIFY(commprof::runner::readPidRecord(dir.filePath("pids/cell_rank0.pid"), record));
        QCOMPARE(record.pid, pool.pid(0));
        QVERIFY(commprof::runner::isRecordedRank(record));
        QVERIFY(::kill(pid_t(pool.pid(0)), SIGKILL) == 0);
        QVERIFY2(gone(ranks[0], 10000) || gone(ranks[1], 10000), "no rank ended with its client");
        QTRY_VERIFY_WITH_TIMEOUT(!pool.running(), 60000);
        QVERIFY(!outcome.success);
        QVERIFY(gone(ranks[0], 10000) && gone(ranks[1], 10000));
    }

    // Issue 52: a server killed mid-run. Its forked ranks die with it, so the cell fails
    // naming the server; the later cells are exec'd, and their records say so (they said
    // "fork" and "pid 0" before, as the client exec'd each rank on its own).
    void aKilledServersLaterCellsSayExec() {
        QTemporaryDir dir;
        const ServerSignalled r = runAndSignalServer(dir, SIGKILL);
        checkServerNamed(dir, r, "was killed by signal 9");
    }

    // Issue 52: a stopped server answers no client, which waited out each cell's deadline.
    // Its silence is found within seconds (ForkServer::kAnswerMs): named in the cell's failure
    // and the run's log, the server ended, and the run goes on by exec.
    void aStoppedServerIsNamedAndTheRunGoesOnByExec() {
        QTemporaryDir dir;
        const ServerSignalled r = runAndSignalServer(dir, SIGSTOP);
        checkServerNamed(dir, r, "stopped answering");
        QVERIFY2(r.stderrText.contains("(its process is stopped)"), qPrintable(r.stderrText));
    }

    // A rank the client exec'd on its own (the server cannot be reached) is recorded so: the
    // client's notice opens the rank's stderr, and the pool reads it into the rank's exit.
    void aRankTheClientExecdIsRecordedSo() {
        QTemporaryDir dir;
        ForkServer server;
        QVERIFY2(server.start(rankBinary(), serverEnv()), qPrintable(server.reason()));
        PoolSpec spec = poolSpec(dir.path(), 1, model(3), &server);
        spec.args[0] = dir.filePath("no-server.sock"); // the client's SOCKET: nobody listens
        RankPool pool;
        const PoolOutcome o = pool.runBlocking(spec);
        QVERIFY2(o.success, qPrintable(o.reason));
        QVERIFY2(o.ranks[0].execNotice.startsWith("the fork server at " +
                                                  dir.filePath("no-server.sock")),
                 qPrintable(o.ranks[0].stderrTail));
        const commprof::runner::RankStarts starts =
            commprof::runner::rankStarts({}, o.ranks, server.pid());
        QCOMPARE(starts.startedBy, QString("exec"));
        QCOMPARE(starts.execReason, o.ranks[0].execNotice);
        QVERIFY(server.answers()); // the server itself still serves
    }

    // An empty socket would bind an abstract address of NULs: refused, exit 2 (docs/cli.md),
    // before any ready line.
    void anEmptySocketIsRefused() {
        const CliResult r = runCli("commprof-rank", {"--fork-server", ""}, 60000);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(!r.out.contains("fork-server ready"), r.out.constData());
        QVERIFY2(r.err.contains("--fork-server takes the path of a unix socket"),
                 r.err.constData());
    }

    // `commprof run`: every cell's ranks forked from one server, said in launcher.log and in
    // the cell's records, by default; with COMMPROF_FORK_SERVER=0, by exec with the reason.
    void commprofRunForksEveryCell() {
        QTemporaryDir dir;
        const QString matrix =
            writeMatrix(dir, QString(kQuick).replace("world_sizes: [1]", "world_sizes: [1, 2]"));
        QProcessEnvironment on = QProcessEnvironment::systemEnvironment();
        on.remove("COMMPROF_FORK_SERVER");
        const CliResult forked =
            runCli("commprof", {"run", matrix, "--out", dir.filePath("f")}, 600000, on);
        QVERIFY2(forked.exitCode == 0, forked.err.constData());
        QProcessEnvironment off = QProcessEnvironment::systemEnvironment();
        off.insert("COMMPROF_FORK_SERVER", "0");
        const CliResult execd =
            runCli("commprof", {"run", matrix, "--out", dir.filePath("e")}, 600000, off);
        QVERIFY2(execd.exitCode == 0, execd.err.constData());
        QStringList serverPids;
        for (const QString& cell :
             {QString("tiny_gloo_cpu_ws1_r0"), QString("tiny_gloo_cpu_ws2_r0")}) {
            const QJsonObject f = readJsonFile(dir.filePath("f/cells/" + cell + "/manifest.json"));
            QCOMPARE(f["launcher"]["ranks_started_by"].toString(), QString("fork"));
            const QString log = cellLog(dir.filePath("f"), cell);
            const QRegularExpressionMatch m =
                QRegularExpression("ranks forked from the run's fork server \\(pid (\\d+)\\)")
                    .match(log);
            QVERIFY2(m.hasMatch(), qPrintable(log));
            serverPids << m.captured(1);
            const QJsonObject e = readJsonFile(dir.filePath("e/cells/" + cell + "/manifest.json"));
            QCOMPARE(e["launcher"]["ranks_started_by"].toString(), QString("exec"));
            const QString off = "the fork server is off (COMMPROF_FORK_SERVER=0)";
            QCOMPARE(e["launcher"]["exec_reason"].toString(), off);
            QVERIFY2(cellLog(dir.filePath("e"), cell).contains("ranks started by exec: " + off),
                     qPrintable(cellLog(dir.filePath("e"), cell)));
        }
        QCOMPARE(serverPids[0], serverPids[1]); // one server for the run
    }
};

QTEST_GUILESS_MAIN(TstForkServer)
#include "tst_fork_server.moc"
