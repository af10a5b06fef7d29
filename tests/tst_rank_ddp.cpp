// SPDX-License-Identifier: GPL-3.0-or-later
// commprof-rank over real Gloo process groups: real processes, real files.

#include "pool_helpers.h"
#include "trace/step_metrics.h"
#include "trace/trace_reader.h"

#include <QElapsedTimer>
#include <QMap>
#include <QSet>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <csignal>

using commprof::runner::PoolOutcome;
using commprof::runner::PoolSpec;
using commprof::runner::RankPool;

namespace {

QStringList smallModel(int iterations = 12, int warmup = 3) {
    return {"--params",          "4e5",
            "--iterations",      QString::number(iterations),
            "--warmup",          QString::number(warmup),
            "--batch-size",      "16",
            "--threads",         "1",
            "--bucket-cap-mb",   "0.5",
            "--first-bucket-mb", "0.25"};
}

PoolOutcome runPool(const QString& dir, int world, const QStringList& args,
                    int* progressEvents = nullptr) {
    const PoolSpec spec = rankPoolSpec(dir, world, args, 30, 240000);
    RankPool pool;
    int events = 0;
    QObject::connect(&pool, &RankPool::progress, [&](int, const QJsonObject& e) {
        if (e["event"].toString() == "iteration") {
            ++events;
        }
    });
    const PoolOutcome out = pool.runBlocking(spec);
    if (progressEvents) {
        *progressEvents = events;
    }
    return out;
}

// DDP's rule, applied in gradient-ready order (reverse registration order): a bucket closes
// once it reaches its cap; the first cap is first_bucket_mb, the rest bucket_cap_mb.
QList<qint64> expectedBucketBytes(const QJsonArray& params, double firstMb, double capMb) {
    QList<qint64> out;
    qint64 cur = 0;
    qint64 limit = qint64(firstMb * 1024 * 1024);
    for (int i = params.size() - 1; i >= 0; --i) {
        cur += params[i].toObject()["bytes"].toInteger();
        if (cur >= limit) {
            out << cur;
            cur = 0;
            limit = qint64(capMb * 1024 * 1024);
        }
    }
    if (cur) {
        out << cur;
    }
    return out;
}

// The torch version of Debian's python3, or an empty string when it has none.
QString pythonTorchVersion() {
    QProcess p;
    p.start("/usr/bin/python3", {"-c", "import torch; print(torch.__version__)"});
    if (!p.waitForFinished(120000) || p.exitCode() != 0) {
        return {};
    }
    return QString(p.readAllStandardOutput()).trimmed();
}

// PyTorch's own Python DDP on the model of a rank file (tests/pytorch_reference.py).
QJsonObject pytorchReference(const QString& rankFile, const QStringList& args, QString& error) {
    QProcess p;
    p.start("/usr/bin/python3",
            QStringList{COMMPROF_SOURCE_DIR "/tests/pytorch_reference.py", rankFile} + args);
    if (!p.waitForFinished(180000) || p.exitCode() != 0) {
        error = p.readAllStandardError();
        return {};
    }
    return QJsonDocument::fromJson(p.readAllStandardOutput()).object();
}

QList<qint64> toList(const QJsonValue& array) {
    QList<qint64> out;
    for (const QJsonValue v : array.toArray()) {
        out << v.toInteger();
    }
    return out;
}

QList<qint64> bucketBytesAt(const QJsonObject& rankFile, int iteration) {
    QList<qint64> out;
    for (const QJsonValue bValue : rankFile["buckets"].toArray()) {
        const QJsonObject b = bValue.toObject();
        if (b["iter"].toInt() == iteration) {
            out << b["bytes"].toInteger();
        }
    }
    return out;
}

} // namespace

class TstRankDdp : public QObject {
    Q_OBJECT
private slots:
    void worldSizes_data() {
        QTest::addColumn<int>("world");
        QTest::newRow("ws1") << 1;
        QTest::newRow("ws2") << 2;
        QTest::newRow("ws4") << 4;
    }
    void worldSizes() {
        QFETCH(int, world);
        QTemporaryDir dir;
        int events = 0;
        const PoolOutcome out = runPool(dir.path(), world, smallModel(), &events);
        QVERIFY2(out.success, qPrintable(poolFailure(out)));
        QCOMPARE(events, 12 * world);
        QSet<QString> paramChecksums;
        QSet<QString> signatures;
        for (int r = 0; r < world; ++r) {
            const QJsonObject f = readJsonFile(dir.filePath(QString("rank%1.json").arg(r)));
            QCOMPARE(f["rank"].toInt(), r);
            QCOMPARE(f["world_size"].toInt(), world);
            QCOMPARE(f["layer"].toString(), QString("gloo_cpu"));
            QCOMPARE(f["interconnect"].toString(), QString("host_loopback"));
            QVERIFY(f["grad_checksums_agree"].toBool());
            QCOMPARE(f["rebuild_detected"].toBool(), false);
            QCOMPARE(f["bucket_counts_seen"].toArray().size(), 1);
            const int perIteration = f["bucket_counts_seen"][0].toInt();
            QVERIFY(perIteration >= 2);
            QMap<int, int> seen;
            for (const QJsonValue bValue : f["buckets"].toArray()) {
                const QJsonObject b = bValue.toObject();
                QVERIFY(b["end_ns"].toInteger() > b["start_ns"].toInteger());
                QVERIFY(b["bytes"].toInteger() > 0);
                seen[b["iter"].toInt()]++;
            }
            QCOMPARE(seen.size(), 12 - 3); // every iteration from the end of warmup
            for (int it = 3; it < 12; ++it) {
                QCOMPARE(seen.value(it), perIteration);
            }
            QCOMPARE(f["iterations"].toArray().size(), 12);
            for (const QJsonValue itValue : f["iterations"].toArray()) {
                const QJsonObject it = itValue.toObject();
                QVERIFY(it["step_ms"].toDouble() > 0);
                QVERIFY(it["step_ms"].toDouble() >= it["backward_ms"].toDouble());
            }
            QVERIFY(f["peak_host_bytes"].toInteger() > 10 * 1024 * 1024);
            const double requested = f["model"]["requested_params"].toDouble();
            QVERIFY(std::abs(f["model"]["params"].toDouble() - requested) / requested < 0.02);
            paramChecksums << QString::number(f["param_checksum"].toDouble(), 'g', 17);
            signatures << f["model"]["signature"].toString();
        }
        QCOMPARE(paramChecksums.size(), 1);
        QCOMPARE(signatures.size(), 1);
    }

    void traceFollowsSemanticsAndAgreesWithHook() {
        QTemporaryDir dir;
        // Buckets of a few MB keep the all-reduces long against scheduling noise on a busy host.
        const PoolOutcome out =
            runPool(dir.path(), 2,
                    {"--params", "3e6", "--iterations", "10", "--warmup", "3", "--batch-size", "8",
                     "--threads", "1", "--bucket-cap-mb", "4", "--first-bucket-mb", "1", "--trace",
                     "--trace-steps", "5"});
        QVERIFY2(out.success, qPrintable(poolFailure(out)));
        const QJsonObject f = readJsonFile(dir.filePath("rank0.json"));
        QCOMPARE(f["trace_file"].toString(), QString("trace_rank0.json.gz"));
        const auto trace =
            commprof::trace::readTraceFile(dir.filePath("trace_rank0.json.gz").toStdString());
        QVERIFY(trace.warnings.empty());
        const auto summary = commprof::trace::summarize(trace);
        QCOMPARE(summary.regime, commprof::trace::Regime::Host);
        QVERIFY(summary.stepsMarked);
        QCOMPARE(int(summary.steps.size()), 5);
        // Per step: the union of the hook's bucket intervals against the trace's communication.
        QMap<int, std::vector<commprof::trace::Span>> hookSpans;
        for (const QJsonValue v : f["buckets"].toArray()) {
            const QJsonObject b = v.toObject();
            hookSpans[b["iter"].toInt()].push_back(
                {b["start_ns"].toDouble() / 1000.0, b["end_ns"].toDouble() / 1000.0});
        }
        QList<double> ratios;
        QString detail;
        for (const auto& step : summary.steps) {
            QVERIFY(step.computeUs > 0);
            QVERIFY(step.commUs > 0);
            const double hook =
                commprof::trace::SpanSet::unionOf(hookSpans.value(step.step)).length();
            QVERIFY(hook > 0);
            ratios << step.commUs / hook;
            detail += QString("step %1: trace %2 us, hook %3 us\n")
                          .arg(step.step)
                          .arg(step.commUs)
                          .arg(hook);
        }
        std::sort(ratios.begin(), ratios.end());
        const double median = ratios[ratios.size() / 2];
        // The trace's communication is gloo's own spans, inside the hook's intervals: never
        // above the hook by more than rounding, and below it by the time gloo's worker takes
        // to wake, which a busy machine stretches. The 10 % judgement of the two instruments
        // is tst_instruments', which runs alone; here the trace must follow the hook.
        QVERIFY2(median > 0.75 && median < 1.1, qPrintable(detail));

        // The rank's own gloo spans carry their message as Kineto's record_param_comms spans do
        // ("In msg nelems", "dtype", "Group size"), so the trace's collectives have bytes and
        // bandwidths. Each traced all-reduce is one of its iteration's buckets as the hook's
        // record sizes them, and a step whose every bucket has its gloo span adds up to the
        // model's gradients, every parameter trained in float32 (params x 4 bytes, the count as
        // the rank file states it). libtorch 1.13 now and then records no gloo span for one
        // bucket (1 in 15 on a busy host, the same before the sizes were written): such a step
        // is checked bucket by bucket only.
        const double gradientBytes =
            (f["model"]["params"].toDouble() - f["model"]["frozen_params"].toDouble()) * 4;
        QMap<int, QList<double>> bucketBytes;
        for (const QJsonValue v : f["buckets"].toArray()) {
            bucketBytes[v["iter"].toInt()] << v["bytes"].toDouble();
        }
        int wholeSteps = 0;
        for (const auto& step : summary.steps) {
            QVERIFY2(step.commBytes.has_value(), qPrintable(QString("step %1").arg(step.step)));
            QList<double> hooked = bucketBytes.value(step.step);
            double hookedSum = 0;
            for (const double b : hooked) {
                hookedSum += b;
            }
            QCOMPARE(hookedSum, gradientBytes);
            for (const auto& c : trace.collectives) {
                if (c.startUs >= step.startUs && c.startUs < step.endUs) {
                    QCOMPARE(QString::fromStdString(c.kind), QString("all_reduce"));
                    QCOMPARE(c.groupSize.value_or(0), std::int64_t(2));
                    QVERIFY(c.busbwGBps.has_value());
                    QVERIFY2(hooked.removeOne(c.bytes.value_or(-1)),
                             qPrintable(QString("step %1: %2 bytes is no bucket of the hook's")
                                            .arg(step.step)
                                            .arg(c.bytes.value_or(-1))));
                }
            }
            if (hooked.isEmpty()) {
                QCOMPARE(*step.commBytes, gradientBytes);
                ++wholeSteps;
            }
        }
        QVERIFY(wholeSteps >= 1);
    }

    void storeListensOnMasterAddrOnly() {
        const int port = RankPool::freeLoopbackPort();
        QTemporaryDir dir;
        QProcess p;
        p.setProcessEnvironment(rankEnvironment(0, 2, port));
        p.start(rankBinary(), {"--out", dir.path(), "--rendezvous-timeout-s", "10"});
        QVERIFY(p.waitForStarted());
        // /proc/net/tcp{,6} list listening sockets (state 0A) as hex address:port.
        const QString portHex = QString("%1").arg(port, 4, 16, QChar('0')).toUpper();
        QStringList listeners;
        QElapsedTimer t;
        t.start();
        while (listeners.isEmpty() && t.elapsed() < 8000) {
            for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
                QFile f(table);
                if (!f.open(QIODevice::ReadOnly)) {
                    continue;
                }
                for (const QByteArray& line : f.readAll().split('\n')) {
                    const QList<QByteArray> cols = line.simplified().split(' ');
                    if (cols.size() > 3 && cols[3] == "0A" &&
                        cols[1].endsWith(":" + portHex.toLatin1())) {
                        listeners << cols[1];
                    }
                }
            }
            QThread::msleep(50);
        }
        p.kill();
        p.waitForFinished();
        QCOMPARE(listeners, QStringList{"0100007F:" + portHex});
    }

    void rebuildDetectedWhenRecordingFromIterationZero() {
        QTemporaryDir dir;
        const PoolOutcome out = runPool(
            dir.path(), 2,
            smallModel(5, 2) + QStringList{"--record-from-iteration", "0", "--bucket-cap-mb", "0.3",
                                           "--first-bucket-mb", "0.1"});
        QVERIFY2(out.success, qPrintable(poolFailure(out)));
        const QJsonObject f = readJsonFile(dir.filePath("rank0.json"));
        QVERIFY(f["bucket_counts_seen"].toArray().size() > 1);
        QCOMPARE(f["rebuild_detected"].toBool(), true);
    }

    void defaultCapsGiveDdpBucketSizes() {
        QTemporaryDir dir;
        const PoolOutcome out = runPool(dir.path(), 2,
                                        {"--params", "1e7", "--iterations", "3", "--warmup", "1",
                                         "--batch-size", "8", "--threads", "1"});
        QVERIFY2(out.success, qPrintable(poolFailure(out)));
        const QJsonObject f = readJsonFile(dir.filePath("rank0.json"));
        const QList<qint64> expected = expectedBucketBytes(f["parameters"].toArray(), 1.0, 25.0);
        QCOMPARE(expected.size(), 3);
        QVERIFY(expected[0] < 25 * 1024 * 1024);
        QCOMPARE(bucketBytesAt(f, 2), expected);
    }

    // The buckets after DDP's rebuild against Python DDP's own on this platform's PyTorch.
    // With an explicit cap, 1.13 keeps a 1 MiB first bucket and 2.x caps it like the rest.
    void bucketsMatchPythonDdp_data() {
        QTest::addColumn<QString>("params");
        QTest::addColumn<double>("capMb"); // 0: DDP's defaults
        QTest::newRow("default caps, 3 buckets") << "1e7" << 0.0;
        QTest::newRow("explicit 0.25 MiB cap") << "4e5" << 0.25;
    }
    void bucketsMatchPythonDdp() {
        QFETCH(QString, params);
        QFETCH(double, capMb);
        const QString version = pythonTorchVersion();
        if (version.isEmpty()) {
            if (qEnvironmentVariableIsSet("COMMPROF_REQUIRE_PYTORCH")) {
                QFAIL("/usr/bin/python3 cannot import torch (install python3-torch)");
            }
            QSKIP("/usr/bin/python3 has no torch: no Python DDP to compare with");
        }
        const bool twoX = version.section('.', 0, 0).toInt() >= 2;
        const double firstMb = capMb == 0 ? 1.0 : (twoX ? capMb : 1.0);
        QStringList args{"--params",  params, "--iterations",      "3",
                         "--warmup",  "1",    "--batch-size",      "8",
                         "--threads", "1",    "--first-bucket-mb", QString::number(firstMb)};
        QStringList refArgs;
        if (capMb > 0) {
            args << "--bucket-cap-mb" << QString::number(capMb);
            refArgs << "--bucket-cap-mb" << QString::number(capMb);
        }
        QTemporaryDir dir;
        const PoolOutcome out = runPool(dir.path(), 2, args);
        QVERIFY2(out.success, qPrintable(poolFailure(out)));
        const QJsonObject f = readJsonFile(dir.filePath("rank0.json"));
        QString error;
        const QJsonObject ref = pytorchReference(dir.filePath("rank0.json"), refArgs, error);
        QVERIFY2(!ref.isEmpty(), qPrintable(error));
        qInfo("python torch %s, commprof-rank libtorch %s: Python DDP rebuilt %s",
              qPrintable(ref["torch_version"].toString()),
              qPrintable(f["torch_version"].toString()),
              qPrintable(QJsonDocument(ref["ddp_rebuilt_bucket_bytes"].toArray())
                             .toJson(QJsonDocument::Compact)));
        QCOMPARE(ref["first_bucket_bytes"].toInteger(), qint64(firstMb * 1024 * 1024));
        const QList<qint64> got = bucketBytesAt(f, 2);
        QCOMPARE(got, toList(ref["ddp_rebuilt_bucket_bytes"]));
        QCOMPARE(got, toList(ref["assignment_bucket_bytes"]));
        const QJsonArray parameters = f["parameters"].toArray();
        const double cap = capMb > 0 ? capMb : 25.0;
        QCOMPARE(got, expectedBucketBytes(parameters, firstMb, cap));
        if (capMb > 0) {
            // The row tells the rules apart: the other version's first bucket would differ.
            QVERIFY(got != expectedBucketBytes(parameters, twoX ? 1.0 : capMb, cap));
        }
    }

    void transformerFamilyHasBucketsOfDifferentShapes() {
        QTemporaryDir dir;
        const PoolOutcome out =
            runPool(dir.path(), 2,
                    {"--family", "transformer", "--params", "1e6", "--iterations", "4", "--warmup",
                     "1", "--batch-size", "4", "--threads", "1", "--bucket-cap-mb", "1",
                     "--first-bucket-mb", "0.5", "--optimizer", "adam"});
        QVERIFY2(out.success, qPrintable(poolFailure(out)));
        const QJsonObject f = readJsonFile(dir.filePath("rank1.json"));
        // The default --model (mlp2m) names a preset: --family must still win over its family.
        QCOMPARE(f["model"]["family"].toString(), QString("transformer"));
        QVERIFY(std::abs(f["model"]["params"].toDouble() - 1e6) / 1e6 < 0.02);
        QSet<qint64> sizes;
        for (const QJsonValue bValue : f["buckets"].toArray()) {
            const QJsonObject b = bValue.toObject();
            sizes << b["bytes"].toInteger();
        }
        QVERIFY(sizes.size() >= 2);
        QVERIFY(f["grad_checksums_agree"].toBool());
    }

    void presetNamesSizeTheModel_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("family");
        QTest::addColumn<double>("params");
        QTest::newRow("mlp1m") << "mlp1m"
                               << "mlp" << 1e6;
        QTest::newRow("transformer2m") << "transformer2m"
                                       << "transformer" << 2e6;
    }
    void presetNamesSizeTheModel() {
        QFETCH(QString, model);
        QFETCH(QString, family);
        QFETCH(double, params);
        QTemporaryDir dir;
        const PoolOutcome out = runPool(dir.path(), 1,
                                        {"--model", model, "--iterations", "2", "--warmup", "1",
                                         "--batch-size", "2", "--threads", "1"});
        QVERIFY2(out.success, qPrintable(poolFailure(out)));
        const QJsonObject m = readJsonFile(dir.filePath("rank0.json"))["model"].toObject();
        QCOMPARE(m["name"].toString(), model);
        QCOMPARE(m["family"].toString(), family);
        QVERIFY(std::abs(m["params"].toDouble() - params) / params < 0.02);
    }

    void killedRankMakesSurvivorsExitNonZero() {
        QTemporaryDir dir;
        const int port = RankPool::freeLoopbackPort();
        QList<QProcess*> procs;
        for (int r = 0; r < 2; ++r) {
            auto* p = new QProcess(this);
            p->setProcessEnvironment(rankEnvironment(r, 2, port));
            p->start(rankBinary(),
                     smallModel(100000, 1) +
                         QStringList{"--out", dir.path(), "--collective-timeout-s", "20"});
            QVERIFY(p->waitForStarted());
            procs << p;
        }
        // Wait until training is under way, then kill rank 1.
        QByteArray out0;
        QElapsedTimer t;
        t.start();
        while (!out0.contains("\"iter\":3,") && t.elapsed() < 60000) {
            procs[0]->waitForReadyRead(500);
            out0 += procs[0]->readAllStandardOutput();
        }
        QVERIFY(out0.contains("\"iter\":3,"));
        ::kill(pid_t(procs[1]->processId()), SIGKILL);
        t.restart();
        QVERIFY2(procs[0]->waitForFinished(45000), "survivor hung after its peer died");
        QVERIFY(t.elapsed() < 45000);
        QVERIFY(procs[0]->exitStatus() == QProcess::CrashExit || procs[0]->exitCode() != 0);
        QVERIFY(!QFile::exists(dir.filePath("rank0.json")));
        procs[1]->waitForFinished();
    }

    void modelMismatchNamesBothRanks() {
        QTemporaryDir dir;
        PoolSpec spec;
        spec.program = "/bin/sh";
        // Rank 1 asks for a different model: the formation check must stop both.
        spec.args = {
            "-c",
            QString("if [ \"$RANK\" = 1 ]; then P=5e5; else P=4e5; fi; exec '%1' --params $P "
                    "--iterations 2 --warmup 0 --threads 1 --out '%2' --rendezvous-timeout-s 30")
                .arg(rankBinary(), dir.path())};
        spec.worldSize = 2;
        spec.workDir = dir.path();
        spec.deadline = QDeadlineTimer(120000);
        RankPool pool;
        const PoolOutcome out = pool.runBlocking(spec);
        QVERIFY(!out.success);
        bool named = false;
        for (const auto& r : out.ranks) {
            if (r.stderrTail.contains("mismatch between rank 0 and rank 1") &&
                r.stderrTail.contains("fc0.weight")) {
                named = true;
            }
        }
        QVERIFY2(named, qPrintable(poolFailure(out)));
    }

    void clearErrors_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("expectExit");
        QTest::addColumn<QString>("expectText");
        QTest::newRow("bad flag") << QStringList{"--no-such-flag"} << 2
                                  << "unknown flag '--no-such-flag'";
        QTest::newRow("bad number")
            << QStringList{"--iterations", "many"} << 2 << "--iterations: expected an integer";
        QTest::newRow("nccl on cpu build")
            << QStringList{"--backend", "nccl", "--device", "cuda"} << 1 << "without";
    }
    void clearErrors() {
        QFETCH(QStringList, args);
        QFETCH(int, expectExit);
        QFETCH(QString, expectText);
        QTemporaryDir dir;
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("MASTER_PORT", QString::number(RankPool::freeLoopbackPort()));
        p.setProcessEnvironment(env);
        p.start(rankBinary(), args + QStringList{"--out", dir.path()});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), expectExit);
        const QString err = p.readAllStandardError();
        QVERIFY2(err.contains(expectText), qPrintable(err));
    }

    void portInUseIsReported() {
        QTcpServer squatter;
        QVERIFY(squatter.listen(QHostAddress::LocalHost, 0));
        QTemporaryDir dir;
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("MASTER_PORT", QString::number(squatter.serverPort()));
        p.setProcessEnvironment(env);
        p.start(rankBinary(), {"--out", dir.path(), "--rendezvous-timeout-s", "5"});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 3);
        QVERIFY(QString(p.readAllStandardError()).contains("already in use"));
    }

    void missingPeerTimesOut() {
        QTemporaryDir dir;
        QProcess p;
        p.setProcessEnvironment(rankEnvironment(0, 2, RankPool::freeLoopbackPort()));
        QElapsedTimer t;
        t.start();
        p.start(rankBinary(), {"--out", dir.path(), "--rendezvous-timeout-s", "3"});
        QVERIFY(p.waitForFinished(60000));
        QVERIFY(t.elapsed() < 30000);
        QCOMPARE(p.exitCode(), 3);
        QVERIFY(QString(p.readAllStandardError()).contains("rendezvous"));
    }
};

QTEST_GUILESS_MAIN(TstRankDdp)
#include "tst_rank_ddp.moc"
