// SPDX-License-Identifier: GPL-3.0-or-later
// The contract between commprof-rank and its launchers (spec/rank_contract.h) and what every
// launcher does with it (runner/launcher_base.h): one port-clash policy, progress lines, the
// stderr tail, the file names both sides use.

#include "rank_files.h"
#include "runner/launcher_base.h"
#include "runner/rank_pool.h"
#include "spec/rank_contract.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace commprof;
using namespace commprof::runner;

namespace {

// What commprof-rank prints when the rendezvous port is taken (app/rank/rendezvous.cpp).
QString clashMessage(int rank, int port) {
    return QString("commprof-rank[%1]: rendezvous port %2 on 127.0.0.1 %3")
        .arg(rank)
        .arg(port)
        .arg(spec::kPortInUse);
}

RankExit rendezvousFailure(int rank, const QString& tail) {
    return RankExit{rank, spec::exit_code::kRendezvous, false, tail};
}

// A stand-in for commprof-rank: a shell script, so the policy is tested on ranks that end as
// told, in a moment.
QString fakeRank(const QTemporaryDir& dir, const QByteArray& body) {
    const QString path = dir.filePath("fake-rank.sh");
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly)) {
        return {};
    }
    f.write("#!/bin/sh\n" + body);
    f.close();
    f.setPermissions(f.permissions() | QFileDevice::ExeOwner);
    return path;
}

PoolOutcome runPool(const QString& program, const QString& workDir) {
    PoolSpec spec;
    spec.program = program;
    spec.worldSize = 2;
    spec.workDir = workDir;
    spec.graceMs = 500;
    spec.deadline = QDeadlineTimer(60000);
    RankPool pool;
    return pool.runBlocking(spec);
}

// A rank body that, where `when` holds, runs `first` and then fails as commprof-rank does on a
// taken rendezvous port (the line and the exit code the pool looks for); else runs `otherwise`.
QByteArray clashingRankScript(const QString& rank, const QString& when, const QString& first,
                              const QString& otherwise) {
    return ("if " + when + "; then\n" + first + "  echo \"commprof-rank[" + rank +
            "]: rendezvous port $MASTER_PORT on $MASTER_ADDR " + spec::kPortInUse + "\" >&2\n" +
            "  exit " + QString::number(spec::exit_code::kRendezvous) + "\nfi\n" + otherwise + "\n")
        .toUtf8();
}

} // namespace

class TstLauncherContract : public QObject {
    Q_OBJECT
private slots:
    // Only rank 0 binds the rendezvous port (it serves the store; the others connect to it),
    // so only its clash is one a new port can cure.
    void portClashIsRankZeros() {
        QVERIFY(
            portClash({rendezvousFailure(0, clashMessage(0, 29500)), RankExit{1, -1, true, {}}}));
        QVERIFY(
            !portClash({RankExit{0, -1, true, {}}, rendezvousFailure(1, clashMessage(1, 29500))}));
        // Rank 0's other rendezvous failures, and the message under another exit code, are not.
        QVERIFY(!portClash({rendezvousFailure(0, "rendezvous at 127.0.0.1:29500 failed within "
                                                 "60 s (world size 2): timeout")}));
        QVERIFY(!portClash({RankExit{0, spec::exit_code::kFailed, false, clashMessage(0, 1)}}));
        QVERIFY(!portClash({}));
    }

    void retriesAreBounded() {
        PoolOutcome o;
        o.ranks = {rendezvousFailure(0, clashMessage(0, 29500))};
        o.attempts = 1;
        const QDeadlineTimer later(60000);
        QVERIFY(retryOnAnotherPort(o, later));
        o.attempts = kMaxPortRetries + 1;
        QVERIFY(!retryOnAnotherPort(o, later));
        o.attempts = 1;
        QVERIFY(!retryOnAnotherPort(o, QDeadlineTimer(0)));
        o.stopped = true;
        QVERIFY(!retryOnAnotherPort(o, later));
        o.stopped = false;
        o.timedOut = true;
        QVERIFY(!retryOnAnotherPort(o, later));
    }

    // Rank 1 says its port is in use: it bound nothing, so the cell fails once, on its own
    // reason, instead of being started again on three more ports.
    void poolDoesNotRetryAnotherRanksClash() {
        QTemporaryDir dir;
        const QString program =
            fakeRank(dir, clashingRankScript("1", "[ \"$RANK\" = 1 ]", "", "exec sleep 30"));
        const PoolOutcome o = runPool(program, dir.path());
        QVERIFY(!o.success);
        QCOMPARE(o.attempts, 1);
        QCOMPARE(o.reason, QString("rank 1 exited with code %1").arg(spec::exit_code::kRendezvous));
        QVERIFY(o.ranks[1].stderrTail.contains(spec::kPortInUse));
    }

    // Rank 0 found the port taken on the first attempt: the pool tries another and succeeds.
    void poolRetriesRankZerosClash() {
        QTemporaryDir dir;
        const QString program =
            fakeRank(dir, clashingRankScript("0", "[ \"$RANK\" = 0 ] && [ ! -e clashed ]",
                                             "  : > clashed\n", "exit 0"));
        const PoolOutcome o = runPool(program, dir.path());
        QVERIFY2(o.success, qPrintable(o.reason));
        QCOMPARE(o.attempts, 2);
    }

    void progressLines() {
        const QByteArray good = R"({"event":"iteration","rank":1,"iter":7,"of":30,"step_ms":2.5})";
        QCOMPARE(progressEvent(good, 1).value(spec::progress::kIter).toInt(), 7);
        QVERIFY(progressEvent("commprof-rank[0]: warning: {not json", 1).isEmpty());
        QVERIFY(progressEvent("[1,2]", 1).isEmpty());
        // Issue 33: a rank forging events. Another rank's (or no world's) number, numbers out
        // of range or not finite, an unknown event: none is an event of this rank.
        for (const QByteArray& forged : {
                 QByteArray(R"({"event":"iteration","rank":1000000,"iter":7,"of":30,"step_ms":1})"),
                 QByteArray(R"({"event":"iteration","rank":0,"iter":7,"of":30,"step_ms":1})"),
                 QByteArray(R"({"event":"iteration","rank":1,"iter":-5,"of":30,"step_ms":1})"),
                 QByteArray(R"({"event":"iteration","rank":1,"iter":30,"of":30,"step_ms":1})"),
                 QByteArray(R"({"event":"iteration","rank":1,"iter":1.5,"of":30,"step_ms":1})"),
                 QByteArray(R"({"event":"iteration","rank":1,"iter":7,"of":30,"step_ms":1e999})"),
                 QByteArray(R"({"event":"iteration","rank":1,"iter":7,"of":30,"step_ms":-1})"),
                 QByteArray(R"({"event":"iteration","rank":1,"iter":7,"of":30,"step_ms":"1"})"),
                 QByteArray(R"({"event":"bucket","rank":1,"iter":7,"index":-1,"bytes":8,"ms":1})"),
                 QByteArray(R"({"event":"sweep","rank":1,"kind":"all_reduce","bytes":1e300})"),
                 QByteArray(R"({"event":"cell","rank":1,"id":"x","state":"complete"})"),
             }) {
            QVERIFY2(progressEvent(forged, 1).isEmpty(), forged.constData());
        }
        // Only the event's own fields pass: a rank cannot add the run's.
        const QJsonObject kept = progressEvent(
            R"({"event":"bucket","rank":1,"iter":7,"index":2,"bytes":8,"ms":1,"cell":"x"})", 1);
        QCOMPARE(kept.keys(), (QStringList{"bytes", "event", "index", "iter", "ms", "rank"}));
        // A loss the rank could not write (JSON has no NaN: null) leaves the event, not the loss.
        QVERIFY(!progressEvent(good.chopped(1) + R"(,"loss":null})", 1).contains("loss"));
        QStringList lines;
        LineSplitter split;
        const auto take = [&](const QByteArray& l) { lines << QString::fromUtf8(l); };
        split.feed("one\ntw", take);
        split.feed("o\nthree", take);
        QCOMPARE(lines, (QStringList{"one", "two"}));
        QCOMPARE(split.takeRest(), QByteArray("three"));
        // A partial line longer than any progress line is dropped, not kept growing.
        split.feed(QByteArray(qsizetype(spec::progress::kMaxLineBytes) + 1, 'x'), take);
        QCOMPARE(split.takeRest(), QByteArray());
        // A line longer than that is dropped whole, whether it comes at once or in pieces, and
        // its tail is not taken for a line of its own.
        lines.clear();
        const QByteArray huge =
            good.chopped(1) + ",\"pad\":\"" + QByteArray(3 * 1024 * 1024, 'x') + "\"}\n";
        split.feed(huge + "after\n", take);
        QCOMPARE(lines, QStringList{"after"});
        lines.clear();
        for (qsizetype at = 0; at < huge.size(); at += 65536) {
            split.feed(huge.mid(at, 65536), take);
        }
        split.feed("after\n", take);
        QCOMPARE(lines, QStringList{"after"});
    }

    void stderrTailIsBounded() {
        StderrTail tail;
        for (int i = 0; i < 1000; ++i) {
            tail.append(QByteArray(100, 'a') + '\n');
        }
        tail.append("the last line\n");
        QVERIFY(tail.text().size() <= qsizetype(spec::kStderrTailBytes));
        QVERIFY(tail.text().endsWith("the last line"));
    }

    // commprof-rank exits with the contract's code for bad usage.
    void rankUsageExitCode() {
        QProcess p;
        p.start(rankBinary(), {"--no-such-flag"});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), spec::exit_code::kUsage);
    }

    void fileNames() {
        QCOMPARE(QString::fromStdString(spec::files::kRankResult.of(3)), QString("rank3.json"));
        QCOMPARE(QString::fromStdString(spec::files::kTrace.of(0)), QString("trace_rank0.json.gz"));
        QCOMPARE(QString::fromStdString(spec::files::kSweep.of(12)), QString("sweep_rank12.json"));
        QCOMPARE(QString::fromStdString(spec::files::kFingerprint.glob()),
                 QString("fp_rank*.jsonl"));
    }
};

QTEST_GUILESS_MAIN(TstLauncherContract)
#include "tst_launcher_contract.moc"
