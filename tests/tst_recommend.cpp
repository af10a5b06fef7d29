// SPDX-License-Identifier: GPL-3.0-or-later
// commprof recommend on a real run: a 2M-parameter MLP at world size 2 on gloo_cpu at two bucket
// caps (7 buckets at 1 MiB, 2 at 25 MiB) and an all_reduce sweep of the same layer and world
// size; both caps measured, every candidate predicted, and the recommendation among them.

#include "cli_runner.h"
#include "run_helpers.h"

#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

class TstRecommend : public QObject {
    Q_OBJECT
    QTemporaryDir work_;
    QString results_;

private slots:
    void initTestCase() {
        QVERIFY(work_.isValid());
        const QString matrix = writeMatrix(work_, R"(name: recommend_small
defaults:
  iterations: 12
  warmup: 3
  batch_size: 8
  bucket_cap_mb: [1, 25]
  first_bucket_mb: 1
  trace: {enabled: false}
  timeout_s: 240
models:
  - {name: mlp2m, family: mlp, params: 2.0e6}
  - {name: sweep, kind: sweep, collectives: [all_reduce], max_bytes: 16777216, iterations: 5}
layers:
  - {name: gloo_cpu, backend: gloo, device: cpu}
world_sizes: [2]
)");
        results_ = work_.filePath("results");
        const CliResult run = runCli("commprof", {"run", matrix, "--out", results_}, 280000);
        QVERIFY2(run.exitCode == 0, run.err.constData());
    }

    void recommendsFromBothCaps() {
        const CliResult r = runCli("commprof", {"recommend", results_, "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonArray groups = r.json()["groups"].toArray();
        QCOMPARE(groups.size(), 1);
        const QJsonObject g = groups[0].toObject();
        QCOMPARE(g["model"].toString(), QString("mlp2m"));
        QCOMPARE(g["layer"].toString(), QString("gloo_cpu"));
        QCOMPARE(g["world_size"].toInt(), 2);
        QCOMPARE(g["hook"].toString(), QString("allreduce"));
        QCOMPARE(g["ready_times_from"].toString(), QString("mlp2m_gloo_cpu_ws2_cap1_r0"));
        QCOMPARE(g["measured"].toInt(), 2);
        QVERIFY(std::isfinite(g["mape"].toDouble()) && g["mape"].toDouble() >= 0);
        bool recommendedIsCandidate = false;
        int measured = 0;
        for (const QJsonValue& v : g["candidates"].toArray()) {
            const QJsonObject c = v.toObject();
            const double cap = c["bucket_cap_mb"].toDouble();
            QVERIFY(std::isfinite(c["predicted_step_ms"].toDouble()));
            QVERIFY(c["predicted_step_ms"].toDouble() > 0);
            QVERIFY(c["predicted_exposed_ms"].toDouble() >= 0);
            recommendedIsCandidate |= cap == g["recommended_bucket_cap_mb"].toDouble();
            if (cap == 1 || cap == 25) {
                QCOMPARE(c["buckets"].toInt(), cap == 1 ? 7 : 2);
                QVERIFY(c["measured_step_ms"].toDouble() > 0);
                QVERIFY(std::isfinite(c["error"].toDouble()));
                ++measured;
                qInfo("cap %g MiB: predicted %.2f ms, measured %.2f ms, error %.1f %%", cap,
                      c["predicted_step_ms"].toDouble(), c["measured_step_ms"].toDouble(),
                      c["error"].toDouble() * 100);
            } else {
                QVERIFY(c["measured_step_ms"].isNull());
                QVERIFY(c["error"].isNull());
            }
        }
        QCOMPARE(measured, 2);
        QVERIFY(recommendedIsCandidate);
        // The rule of docs/cli.md, applied here to the candidates: predictions within 1 % of the
        // smallest tie, and of those the measured cap with the smallest measured step wins.
        double smallest = INFINITY;
        for (const QJsonValue& v : g["candidates"].toArray()) {
            smallest = std::min(smallest, v["predicted_step_ms"].toDouble());
        }
        double expectedCap = -1, bestMeasured = INFINITY, bestPredicted = INFINITY;
        for (const QJsonValue& v : g["candidates"].toArray()) {
            if (v["predicted_step_ms"].toDouble() > smallest * 1.01) {
                continue;
            }
            if (!v["measured_step_ms"].isNull() && v["measured_step_ms"].toDouble() < bestMeasured) {
                bestMeasured = v["measured_step_ms"].toDouble();
                expectedCap = v["bucket_cap_mb"].toDouble();
            } else if (!std::isfinite(bestMeasured) &&
                       v["predicted_step_ms"].toDouble() < bestPredicted) {
                bestPredicted = v["predicted_step_ms"].toDouble();
                expectedCap = v["bucket_cap_mb"].toDouble();
            }
        }
        QCOMPARE(g["recommended_bucket_cap_mb"].toDouble(), expectedCap);
        qInfo("recommended %g MiB, MAPE %.1f %%", g["recommended_bucket_cap_mb"].toDouble(),
              g["mape"].toDouble() * 100);

        const CliResult text = runCli("commprof", {"recommend", results_});
        QCOMPARE(text.exitCode, 0);
        QVERIFY(text.out.contains("ready times from mlp2m_gloo_cpu_ws2_cap1_r0's bucket launches"));
        QVERIFY(text.out.contains("recommended: "));
        QVERIFY(text.out.contains("over 2 measured caps"));
    }

    // Without the sweep the group says what it lacks and recommends nothing.
    void withoutASweepSaysWhatItLacks() {
        const QString copy = work_.filePath("nosweep");
        QVERIFY(QDir().mkpath(copy + "/cells"));
        for (const QString& id :
             QDir(results_ + "/cells").entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
            if (id.startsWith("sweep")) {
                continue;
            }
            QDir().mkpath(copy + "/cells/" + id);
            const QDir from(results_ + "/cells/" + id);
            for (const QString& f : from.entryList(QDir::Files)) {
                QVERIFY(QFile::copy(from.filePath(f), copy + "/cells/" + id + "/" + f));
            }
        }
        QVERIFY(QFile::copy(results_ + "/run.json", copy + "/run.json"));
        const CliResult r = runCli("commprof", {"recommend", copy, "--json"});
        QCOMPARE(r.exitCode, 1);
        const QJsonObject g = r.json()["groups"].toArray()[0].toObject();
        QVERIFY(g["recommended_bucket_cap_mb"].isNull());
        QVERIFY(g["reason"].toString().contains("no complete all_reduce sweep"));
        QVERIFY(!QFile::exists(copy + "/results.sqlite"));
    }

    void notAResultsFolderIsRefused() {
        const QString empty = work_.filePath("empty");
        QVERIFY(QDir().mkpath(empty));
        const CliResult r = runCli("commprof", {"recommend", empty});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains(empty.toUtf8()));
        QVERIFY(QDir(empty).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TstRecommend)
#include "tst_recommend.moc"
