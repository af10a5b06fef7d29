// SPDX-License-Identifier: GPL-3.0-or-later
// `commprof trace summarize` end to end: the real executable, the JSON shape of docs/cli.md.

#include "cli_runner.h"
#include "gzip_files.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

namespace {

QString writeBomb(const QTemporaryDir& dir, const QString& name, const QByteArray& head, char fill,
                  int members) {
    QString path = dir.filePath(name);
    writeGzipBomb(path, head, fill, members);
    return path;
}

// `commprof trace SUB FIXTURE ARGS...` on one of data/traces' fixtures.
CliResult onFixture(const QString& sub, const QString& fixture, const QStringList& args = {}) {
    return runCli(
        "commprof",
        QStringList{"trace", sub, QString(COMMPROF_TEST_DATA "/traces/%1.json.gz").arg(fixture)} +
            args);
}

} // namespace

class TstCliTrace : public QObject {
    Q_OBJECT
private slots:
    void summarizeJsonShape() {
        const auto r = onFixture("summarize", "legacy_gloo_ddp_rank0", {"--json"});
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
        const auto r = onFixture("summarize", "kineto_nccl_ddp_ws2_rank0", {"--json", "--hta"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject doc = r.json();
        QCOMPARE(doc["comp_comm_overlap_pctg"].toDouble(), 14.31);
        QCOMPARE(doc["kernel_time_us"].toDouble(), 435586.0);
        QCOMPARE(doc["regime"].toString(), QString("device"));
    }

    void textOutputWithoutJson() {
        const auto r = onFixture("summarize", "legacy_gloo_ddp_rank0");
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
        const auto window = onFixture("summarize", "legacy_gloo_ddp_rank0", {"--window", "9:3"});
        QCOMPARE(window.exitCode, 2);
        QVERIFY(window.err.contains("--window"));
    }

    // A job's DDP document has no rows for a CSV: the format is refused, not printed as a table.
    void ddpAndWhatIfRefuseCsv() {
        for (const QString sub : {"ddp", "whatif"}) {
            const auto r = onFixture(sub, "legacy_gloo_ddp_rank0", {"--format", "csv"});
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.contains("--format") && r.err.contains("csv"), qPrintable(r.err));
            QVERIFY(r.out.isEmpty());
        }
    }

    // 20 MB of gzip that inflates to 20 GiB of zeros: refused on its first bytes.
    void gzipBombOfZerosIsRefusedAtOnce() {
        QTemporaryDir dir;
        const QString bomb = writeBomb(dir, "bomb.json.gz", {}, '\0', 320);
        QVERIFY(QFileInfo(bomb).size() > 15'000'000);
        const auto r = runCli("commprof", {"trace", "summarize", bomb}, 60000);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(bomb.toUtf8()), r.err.constData());
        QVERIFY2(r.err.contains("not a Chrome trace"), r.err.constData());
    }

    // A bomb that looks like a trace inflates until the limit, then says which limit and how
    // to raise it. The limit comes from the environment, and the flag wins over it.
    void bombThatLooksLikeATraceStopsAtTheLimit() {
        QTemporaryDir dir;
        const QString bomb =
            writeBomb(dir, "spaces.json.gz", R"({"traceEvents":[)", ' ', 8); // 512 MiB
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("COMMPROF_MAX_TRACE_SIZE", "64M");
        const auto byEnv = runCli("commprof", {"trace", "summarize", bomb}, 60000, env);
        QCOMPARE(byEnv.exitCode, 2);
        QVERIFY2(byEnv.err.contains("more than 64 MiB"), byEnv.err.constData());
        QVERIFY(byEnv.err.contains("--max-trace-size"));
        QVERIFY(byEnv.err.contains("COMMPROF_MAX_TRACE_SIZE"));
        const auto byFlag =
            runCli("commprof", {"trace", "summarize", bomb, "--max-trace-size", "16M"}, 60000, env);
        QCOMPARE(byFlag.exitCode, 2);
        QVERIFY2(byFlag.err.contains("more than 16 MiB"), byFlag.err.constData());
        env.insert("COMMPROF_MAX_TRACE_SIZE", "lots");
        const auto bad = runCli("commprof", {"trace", "summarize", bomb}, 60000, env);
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains("COMMPROF_MAX_TRACE_SIZE"), bad.err.constData());
    }

    // The built-in limit, on a sparse 3 GiB file (no disk space, no memory).
    void defaultLimitRefusesAHugeFileUpFront() {
        QTemporaryDir dir;
        QFile f(dir.filePath("huge.json"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        QVERIFY(f.resize(qint64(3) << 30));
        f.close();
        const auto r = runCli("commprof", {"trace", "summarize", f.fileName()}, 60000);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("more than 2 GiB"), r.err.constData());
        QVERIFY(r.err.contains("--max-trace-size"));
    }

    void onlyRegularFilesAreRead() {
        QTemporaryDir dir;
        const QString zero = dir.filePath("rank1.json");
        QVERIFY(QFile::link("/dev/zero", zero));
        const auto z = runCli("commprof", {"trace", "summarize", zero}, 30000);
        QCOMPARE(z.exitCode, 2);
        QVERIFY2(z.err.contains("rank1.json: is a character device"), z.err.constData());
        // A pipe with no writer must not hang the reader.
        const QString fifo = dir.filePath("trace.json");
        QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
        const auto p = runCli("commprof", {"trace", "collectives", fifo}, 30000);
        QCOMPARE(p.exitCode, 2);
        QVERIFY2(p.err.contains("is a pipe"), p.err.constData());
        // A link to a regular trace is read like the trace.
        const QString link = dir.filePath("linked.json.gz");
        QVERIFY(QFile::link(COMMPROF_TEST_DATA "/traces/legacy_gloo_ddp_rank0.json.gz", link));
        QCOMPARE(runCli("commprof", {"trace", "summarize", link}).exitCode, 0);
    }

    // A directory means the traces in it; the other JSON files of a results cell are skipped.
    void directoryMeansTheTracesInIt() {
        QTemporaryDir dir;
        for (const char* name : {"legacy_gloo_ddp_rank0", "legacy_gloo_ddp_rank1"}) {
            QVERIFY(QFile::copy(QString(COMMPROF_TEST_DATA "/traces/%1.json.gz").arg(name),
                                dir.filePath(QString("%1.json.gz").arg(name))));
        }
        QFile manifest(dir.filePath("manifest.json"));
        QVERIFY(manifest.open(QIODevice::WriteOnly));
        manifest.write(R"({"cell": "x"})");
        manifest.close();
        const auto r = runCli("commprof", {"trace", "summarize", dir.path(), "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject job = r.json();
        const QJsonArray ranks = job["ranks"].toArray();
        QCOMPARE(ranks.size(), 2);
        QCOMPARE(ranks[0]["rank"].toInt(), 0);
        QCOMPARE(ranks[1]["rank"].toInt(), 1);
        QCOMPARE(ranks[0]["totals"]["comm_us"].toDouble(), 66772.0);
        QVERIFY(job["skew"]["instances"].toInt() > 0);
        QVERIFY(QJsonDocument(job["job_warnings"].toArray()).toJson().contains("manifest.json"));
    }

    void memoryAndCollectivesInEverySummary() {
        const auto r = onFixture("summarize", "kineto_nccl_ddp_ws2_rank0", {"--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject doc = r.json();
        for (const auto& step : doc["steps"].toArray()) {
            QVERIFY(step.toObject().contains("memory_us"));
            QVERIFY(step.toObject()["comm_bytes"].toDouble() > 0);
        }
        QVERIFY(doc["totals"].toObject().contains("memory_us"));
        QCOMPARE(doc["distributed"]["world_size"].toInt(), 2);
        QVERIFY(doc["collectives"]["count"].toInt() > 10);
    }

    // A host-only trace has no HTA figures: null, with a warning, never zeros.
    void htaFiguresAreNullWithoutDeviceEvents() {
        const auto r = onFixture("summarize", "legacy_gloo_ddp_rank0", {"--json", "--hta"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject doc = r.json();
        for (const char* key : {"comp_comm_overlap_pctg", "idle_time_us", "compute_time_us",
                                "non_compute_time_us", "kernel_time_us"}) {
            QVERIFY2(doc[key].isNull(), key);
        }
        QVERIFY(QJsonDocument(doc["warnings"].toArray()).toJson().contains("no device events"));
    }

    void windowRestrictsEveryFigure() {
        const QString trace = COMMPROF_TEST_DATA "/traces/legacy_gloo_ddp_rank0.json.gz";
        const QJsonObject all = runCli("commprof", {"trace", "summarize", trace, "--json"}).json();
        const QJsonArray steps = all["steps"].toArray();
        const QJsonObject second = steps[1].toObject();
        const QString window = QString("%1:%2")
                                   .arg(second["start_us"].toDouble(), 0, 'f', 3)
                                   .arg(second["end_us"].toDouble(), 0, 'f', 3);
        const auto r =
            runCli("commprof", {"trace", "summarize", trace, "--json", "--window", window});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject doc = r.json();
        QCOMPARE(doc["steps"].toArray().size(), 1);
        for (const char* key : {"compute_us", "comm_us", "bookkeeping_us", "overlap_us"}) {
            QVERIFY2(std::abs(doc["window"][key].toDouble() - second[key].toDouble()) < 1e-6, key);
            QVERIFY2(std::abs(doc["totals"][key].toDouble() - second[key].toDouble()) < 1e-6, key);
        }
    }

    void windowRestrictsTheCollectivesToo() {
        // The records `trace collectives` lists, counted by the test: those starting inside the
        // second step's window must be exactly what summarize --window --json reports.
        const QString fixture = "kineto_nccl_ddp_ws2_rank0";
        const QJsonObject all = onFixture("summarize", fixture, {"--json"}).json();
        const QJsonObject second = all["steps"].toArray()[1].toObject();
        const double from = second["start_us"].toDouble();
        const double to = second["end_us"].toDouble();
        int inside = 0;
        for (const QJsonValue v :
             onFixture("collectives", fixture, {"--json"}).json()["collectives"].toArray()) {
            const double start = v.toObject()["start_us"].toDouble();
            inside += start >= from && start < to ? 1 : 0;
        }
        QVERIFY(inside > 0 && inside < all["collectives"]["count"].toInt());
        const QString window = QString("%1:%2").arg(from, 0, 'f', 3).arg(to, 0, 'f', 3);
        const QJsonObject doc =
            onFixture("summarize", fixture, {"--json", "--window", window}).json();
        QCOMPARE(doc["collectives"]["count"].toInt(), inside);
        int byKind = 0;
        for (const QJsonValue k : doc["collectives"]["by_kind"].toArray()) {
            byKind += k.toObject()["count"].toInt();
        }
        QCOMPARE(byKind, inside);
    }

    void collectivesListsRecordsAndKinds() {
        const auto r = onFixture("collectives", "kineto_nccl_ddp_ws2_rank0", {"--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject doc = r.json();
        const QJsonArray records = doc["collectives"].toArray();
        QVERIFY(records.size() > 10);
        for (const char* key :
             {"kind", "name", "start_us", "duration_us", "dtype", "in_nelems", "out_nelems",
              "group_size", "process_group", "bytes", "algbw_gbps", "busbw_gbps"}) {
            QVERIFY2(records[0].toObject().contains(key), key);
        }
        QVERIFY(!doc["summary"].toArray().isEmpty());
        const auto text = onFixture("collectives", "kineto_nccl_ddp_ws2_rank0");
        QCOMPARE(text.exitCode, 0);
        QVERIFY(text.out.contains("all_reduce"));
        QCOMPARE(runCli("commprof", {"trace", "collectives"}).exitCode, 2);
    }

    // A world-size-1 all-reduce (4e6 bytes in 1 ms: algbw 4 GB/s by hand) has no bus
    // bandwidth: null in JSON, n/a in the tables of summarize and collectives, never 0.000.
    void oneRankAllReduceHasNoBusBandwidth() {
        QTemporaryDir dir;
        const QString path = dir.filePath("ws1.json");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"ncclDevKernel_Generic",)"
                R"("ts":100,"dur":1000,"pid":0,"tid":7,"args":{"stream":7,"correlation":-5,)"
                R"("Collective name":"allreduce","In msg nelems":1000000,)"
                R"("Out msg nelems":1000000,"Group size":1,"dtype":"Float",)"
                R"("Process Group Name":"0"}}]})");
        f.close();
        const CliResult json = runCli("commprof", {"trace", "collectives", path, "--json"});
        QCOMPARE(json.exitCode, 0);
        const QJsonObject record = json.json()["collectives"].toArray()[0].toObject();
        QCOMPARE(record["algbw_gbps"].toDouble(), 4.0);
        QVERIFY(record["busbw_gbps"].isNull());
        QVERIFY(json.json()["summary"].toArray()[0].toObject()["median_busbw_gbps"].isNull());
        for (const char* sub : {"collectives", "summarize"}) {
            const CliResult text = runCli("commprof", {"trace", sub, path});
            QCOMPARE(text.exitCode, 0);
            QVERIFY2(text.out.contains("n/a") && !text.out.contains(" 0.000\n"),
                     text.out.constData());
        }
    }
};

QTEST_GUILESS_MAIN(TstCliTrace)
#include "tst_cli_trace.moc"
