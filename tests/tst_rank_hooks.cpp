// SPDX-License-Identifier: GPL-3.0-or-later
// commprof-rank's comm hooks (--hook) against PyTorch's own Python hooks on the same model,
// seed, batches and buckets, gradient element by gradient element (tests/hook_reference.py),
// and the DDP logger's times in the rank file.

#include "pool_helpers.h"
#include "python_ranks.h"

#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

using commprof::runner::PoolOutcome;

namespace {

// Small enough for a busy two-core machine; 4e5 parameters make two buckets at a 0.5 MiB cap.
QStringList model(const QString& params, int iterations = 8, int warmup = 2) {
    return {"--params",          params,
            "--iterations",      QString::number(iterations),
            "--warmup",          QString::number(warmup),
            "--batch-size",      "16",
            "--threads",         "1",
            "--first-bucket-mb", "1"}; // Python DDP 1.13's first bucket, whatever the cap
}

// The model's run in two buckets (a 0.5 MiB cap) under `hook`, with `more` flags.
QStringList underHook(const QStringList& model, const QString& hook, const QStringList& more = {}) {
    return model + QStringList{"--bucket-cap-mb", "0.5", "--hook", hook} + more;
}

#define REQUIRE_PYTORCH()                                                                          \
    REQUIRE_PYTORCH_OR_SKIP(pythonHasTorch(),                                                      \
                            "/usr/bin/python3 has no torch: no Python hook to compare with")

bool pythonHasTorch() {
    QProcess p;
    p.start("/usr/bin/python3", {"-c", "import torch"});
    return p.waitForFinished(120000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
}

QJsonObject hookReference(const QString& cellDir, QString& error) {
    return python_ranks::referenceJson("hook_reference.py", {cellDir}, 300000, error);
}

// Whether Debian's Python DDP can all-reduce bfloat16 over gloo (1.13 cannot).
QString pythonGlooBf16Error() {
    QProcess p;
    p.start("/usr/bin/python3",
            {"-c", "import torch, torch.distributed as d\n"
                   "d.init_process_group('gloo', store=d.HashStore(), rank=0, world_size=1)\n"
                   "try:\n    d.all_reduce(torch.ones(2, dtype=torch.bfloat16)); print('')\n"
                   "except Exception as e:\n    print(str(e).splitlines()[0])\n"});
    p.waitForFinished(120000);
    return QString(p.readAllStandardOutput()).trimmed();
}

} // namespace

class TstRankHooks : public QObject {
    Q_OBJECT
private slots:
    // Bitwise: the hooks run the same ATen kernels as Python's, in the same order, on the same
    // inputs, so any difference at all is a fault. The allreduce row is the control: it tells a
    // model or batch mismatch apart from a hook fault.
    void gradientsEqualPythonHooks_data() {
        QTest::addColumn<QString>("hook");
        QTest::addColumn<QStringList>("args");
        QTest::newRow("allreduce (control), 2 buckets")
            << "allreduce" << (model("4e5") + QStringList{"--bucket-cap-mb", "0.5"});
        QTest::newRow("fp16_compress, 2 buckets")
            << "fp16_compress" << (model("4e5") + QStringList{"--bucket-cap-mb", "0.5"});
        // One bucket: Python's powerSGD_hook issues its P and Q all-reduces from completion
        // callbacks, so with two buckets its two gloo ranks can pair them in different orders
        // (gloo then aborts or hangs). commprof-rank's runs them in bucket order on one
        // worker thread and has no such race (multiBucketPowersgd).
        QTest::newRow("powersgd rank 1 (Gram-Schmidt), 6 compressed iterations")
            << "powersgd" << (model("2e5") + QStringList{"--powersgd-rank", "1"});
        QTest::newRow("powersgd rank 4 (QR), 6 compressed iterations")
            << "powersgd" << (model("2e5") + QStringList{"--powersgd-rank", "4"});
    }
    void gradientsEqualPythonHooks() {
        QFETCH(QString, hook);
        QFETCH(QStringList, args);
        REQUIRE_PYTORCH();
        QTemporaryDir dir;
        const PoolOutcome out =
            runRankPool(dir.path(), 2, args + QStringList{"--hook", hook, "--dump-grads"});
        QVERIFY2(out.success, qPrintable(poolFailure(out)));
        const QJsonObject f = readJsonFile(dir.filePath("rank0.json"));
        QCOMPARE(f["config"]["hook"].toString(), hook);
        if (hook == "powersgd") {
            // The comparison covers compressed iterations, and warm start after the first.
            QCOMPARE(f["config"]["powersgd"]["start_powerSGD_iter"].toInt(), 2);
            QCOMPARE(f["config"]["powersgd"]["compressed_buckets"].toInt(), 6);
        }
        QString error;
        const QJsonObject ref = hookReference(dir.path(), error);
        QVERIFY2(!ref.isEmpty(), qPrintable(error));
        QVERIFY2(!ref.contains("python_error"), qPrintable(ref["python_error"].toString()));
        qInfo("%s: torch %s, %lld gradient elements over %d iterations and 2 ranks, max |diff| "
              "%g (relative %g)",
              qPrintable(hook), qPrintable(ref["torch_version"].toString()),
              ref["elements"].toInteger(), ref["iterations"].toInt(),
              ref["max_abs_diff"].toDouble(), ref["max_rel_diff"].toDouble());
        QVERIFY(ref["elements"].toInteger() > 1000000);
        QVERIFY2(ref["bitwise_equal"].toBool(),
                 qPrintable(QJsonDocument(ref).toJson(QJsonDocument::Compact)));
        QCOMPARE(ref["max_abs_diff"].toDouble(), 0.0);
    }

    // Where gloo cannot all-reduce bfloat16 (1.13), the cell fails on every rank with that
    // reason before training; where it can, the hook must match Python's.
    void bf16CompressMatchesPythonOrSaysWhyNot() {
        REQUIRE_PYTORCH();
        const QString pythonError = pythonGlooBf16Error();
        QTemporaryDir dir;
        const PoolOutcome out =
            runRankPool(dir.path(), 2, underHook(model("4e5"), "bf16_compress", {"--dump-grads"}));
        if (!pythonError.isEmpty()) {
            qInfo("Python's gloo: %s", qPrintable(pythonError));
            QVERIFY(!out.success);
            // Every rank fails alike; the pool stops the others once the first has failed, so
            // at least one says why, and none crashed or succeeded.
            int saidWhy = 0;
            for (const auto& r : out.ranks) {
                QVERIFY2(r.exitCode != 0, qPrintable(poolFailure(out)));
                QVERIFY2(!r.stderrTail.contains("terminate called"), qPrintable(poolFailure(out)));
                if (r.exitCode == 1 &&
                    r.stderrTail.contains("--hook bf16_compress: the gloo backend") &&
                    r.stderrTail.contains("cannot all-reduce BFloat16") &&
                    r.stderrTail.contains(pythonError)) {
                    ++saidWhy;
                }
            }
            QVERIFY2(saidWhy >= 1, qPrintable(poolFailure(out)));
            QVERIFY(!QFile::exists(dir.filePath("rank0.json")));
            return;
        }
        QVERIFY2(out.success, qPrintable(poolFailure(out)));
        QString error;
        const QJsonObject ref = hookReference(dir.path(), error);
        QVERIFY2(!ref.isEmpty(), qPrintable(error));
        qInfo("bf16_compress: max |diff| %g", ref["max_abs_diff"].toDouble());
        QVERIFY(ref["bitwise_equal"].toBool());
    }

    // Several buckets, each compressed: the ranks stay in step and agree on every gradient,
    // vanilla all-reduce runs before start_powerSGD_iter, and the wire carries P, Q and the
    // uncompressed tensors only.
    void multiBucketPowersgd() {
        QTemporaryDir dir;
        const PoolOutcome out =
            runRankPool(dir.path(), 2,
                        underHook(model("4e5", 8, 1), "powersgd",
                                  {"--powersgd-start-iter", "3", "--record-from-iteration", "1"}));
        QVERIFY2(out.success, qPrintable(poolFailure(out)));
        const QJsonObject f = readJsonFile(dir.filePath("rank0.json"));
        QVERIFY(f["grad_checksums_agree"].toBool());
        QSet<int> indices;
        for (const QJsonValue v : f["buckets"].toArray()) {
            const QJsonObject b = v.toObject();
            indices << b["index"].toInt();
            const qint64 bytes = b["bytes"].toInteger();
            const qint64 wire = b["wire_bytes"].toInteger();
            if (b["iter"].toInt() < 3) {
                QCOMPARE(wire, bytes);
            } else {
                QVERIFY2(wire > 0 && wire * 10 < bytes, qPrintable(QString::number(wire)));
            }
        }
        QCOMPARE(indices.size(), 2);
        QCOMPARE(f["config"]["powersgd"]["compressed_buckets"].toInt(), 2 * 5);
        const QJsonObject p = f["config"]["powersgd"].toObject();
        QVERIFY(p["numel_after_compression"].toInteger() * 10 <
                p["numel_before_compression"].toInteger());
    }

    // No communication: every bucket is still timed (near zero) and sends nothing, and the
    // ranks, each on its own batch, end with different gradients.
    void localHookSendsNothing() {
        QTemporaryDir dir;
        const PoolOutcome out = runRankPool(dir.path(), 2, underHook(model("4e5", 6, 2), "local"));
        QVERIFY2(out.success, qPrintable(poolFailure(out)));
        const QJsonObject f = readJsonFile(dir.filePath("rank0.json"));
        const QJsonArray buckets = f["buckets"].toArray();
        QCOMPARE(buckets.size(), 4 * 2);
        for (const QJsonValue v : buckets) {
            const QJsonObject b = v.toObject();
            QCOMPARE(b["wire_bytes"].toInteger(), 0);
            QVERIFY(b["end_ns"].toInteger() >= b["start_ns"].toInteger());
        }
        QVERIFY(!f["grad_checksums_agree"].toBool());
    }

    // The third instrument: the Reducer's sampled iterations (its 1-10: 0-9 here), DDP's own
    // averages, and the averages over the iterations the hook recorded too.
    void ddpLoggingDataInRankFile() {
        QTemporaryDir dir;
        const PoolOutcome out =
            runRankPool(dir.path(), 2, underHook(model("4e5", 12, 3), "timing"));
        QVERIFY2(out.success, qPrintable(poolFailure(out)));
        const QJsonObject f = readJsonFile(dir.filePath("rank1.json"));
        QCOMPARE(f["config"]["hook"].toString(), QString("allreduce")); // "timing" is its alias
        const QJsonObject d = f["ddp_logging"].toObject();
        QVERIFY2(d["available"].toBool(), qPrintable(d["reason"].toString()));
        QCOMPARE(d["timer"].toString(), QString("cpu"));
        QList<int> sampled, recorded;
        for (const QJsonValue v : d["iterations_sampled"].toArray()) {
            sampled << v.toInt();
        }
        for (const QJsonValue v : d["recorded_iterations_sampled"].toArray()) {
            recorded << v.toInt();
        }
        QCOMPARE(sampled, (QList<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
        QCOMPARE(recorded, (QList<int>{3, 4, 5, 6, 7, 8, 9}));
        for (const char* key :
             {"avg_backward_compute_time_ns", "avg_backward_comm_time_ns",
              "recorded_avg_backward_compute_time_ns", "recorded_avg_backward_comm_time_ns"}) {
            QVERIFY2(d[key].toInteger() > 0, key);
        }
        QVERIFY(d.contains("recorded_avg_backward_compute_comm_overlap_time_ns"));
        // Each sample's communication spans from the first bucket's launch to the end of the
        // backward: at least as long as the longest bucket the hook timed in that iteration.
        QMap<int, qint64> longestBucket;
        for (const QJsonValue v : f["buckets"].toArray()) {
            const QJsonObject b = v.toObject();
            const qint64 ns = b["end_ns"].toInteger() - b["start_ns"].toInteger();
            longestBucket[b["iter"].toInt()] = std::max(longestBucket[b["iter"].toInt()], ns);
        }
        const QJsonArray samples = d["samples"].toArray();
        QCOMPARE(samples.size(), 10);
        for (const QJsonValue v : samples) {
            const QJsonObject s = v.toObject();
            QVERIFY(s["backward_compute_time_ns"].toInteger() > 0);
            if (longestBucket.contains(s["iter"].toInt())) {
                QVERIFY(s["backward_comm_time_ns"].toInteger() >= longestBucket[s["iter"].toInt()]);
            }
        }
    }

    void badHookInput_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("expectText");
        QTest::newRow("unknown hook")
            << QStringList{"--hook", "fp8_compress"}
            << "--hook: expected allreduce, fp16_compress, bf16_compress, powersgd, local, "
               "default or timing, got 'fp8_compress'";
        QTest::newRow("powersgd before the rebuild")
            << QStringList{"--hook", "powersgd", "--powersgd-start-iter", "1"}
            << "--powersgd-start-iter: expected >= 2";
        QTest::newRow("powersgd rank 0")
            << QStringList{"--hook", "powersgd", "--powersgd-rank", "0"}
            << "--powersgd-rank: expected a rank >= 1";
    }
    void badHookInput() {
        QFETCH(QStringList, args);
        QFETCH(QString, expectText);
        QTemporaryDir dir;
        QProcess p;
        p.start(rankBinary(), args + QStringList{"--out", dir.path()});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 2);
        const QString err = p.readAllStandardError();
        QVERIFY2(err.contains(expectText), qPrintable(err));
    }
};

QTEST_GUILESS_MAIN(TstRankHooks)
#include "tst_rank_hooks.moc"
