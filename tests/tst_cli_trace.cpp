// `commprof trace summarize` end to end: the real executable, the JSON shape of docs/cli.md.

#include "cli_runner.h"

#include <QJsonArray>
#include <QTest>

class TstCliTrace : public QObject {
    Q_OBJECT
private slots:
    void summarizeJsonShape() {
        const auto r = runCli(
            "commprof", {"trace", "summarize",
                         COMMPROF_TEST_DATA "/traces/legacy_gloo_ddp_rank0.json.gz", "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject doc = r.json();
        QCOMPARE(doc["regime"].toString(), QString("host"));
        QCOMPARE(doc["steps_marked"].toBool(), true);
        const QJsonArray steps = doc["steps"].toArray();
        QCOMPARE(steps.size(), 4);
        for (const char* key :
             {"step", "start_us", "end_us", "step_us", "compute_us", "comm_us", "bookkeeping_us",
              "overlap_us", "exposed_comm_us", "overlap_efficiency", "comm_overhead_fraction"}) {
            QVERIFY2(steps[0].toObject().contains(key), key);
        }
        for (const char* key : {"compute_us", "comm_us", "bookkeeping_us", "overlap_us"}) {
            QVERIFY2(doc["totals"].toObject().contains(key), key);
        }
        QCOMPARE(doc["totals"]["comm_us"].toDouble(), 66772.0);
    }

    void htaFiguresAreAdded() {
        const auto r =
            runCli("commprof", {"trace", "summarize",
                                COMMPROF_TEST_DATA "/traces/kineto_nccl_ddp_ws2_rank0.json.gz",
                                "--json", "--hta"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject doc = r.json();
        QCOMPARE(doc["comp_comm_overlap_pctg"].toDouble(), 14.31);
        QCOMPARE(doc["kernel_time_us"].toDouble(), 435586.0);
        QCOMPARE(doc["regime"].toString(), QString("device"));
    }

    void textOutputWithoutJson() {
        const auto r =
            runCli("commprof", {"trace", "summarize",
                                COMMPROF_TEST_DATA "/traces/legacy_gloo_ddp_rank0.json.gz"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("regime: host"));
        QVERIFY(r.out.contains("total"));
    }

    void badInputExitsTwoNamingTheFile() {
        const auto r = runCli(
            "commprof", {"trace", "summarize", COMMPROF_SOURCE_DIR "/CMakeLists.txt", "--json"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("CMakeLists.txt"));
        QVERIFY(r.out.isEmpty());
        QCOMPARE(runCli("commprof", {"trace", "summarize"}).exitCode, 2);
        QCOMPARE(runCli("commprof", {"nosuchcommand"}).exitCode, 2);
    }
};

QTEST_GUILESS_MAIN(TstCliTrace)
#include "tst_cli_trace.moc"
