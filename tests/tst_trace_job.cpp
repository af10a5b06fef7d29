// SPDX-License-Identifier: GPL-3.0-or-later
// Several ranks' traces of one job: collectives matched across ranks, arrival skew, the
// straggler verdict and the slowest rank per step. Hand-built traces for the matching rules;
// then a real `commprof run` at world size 4 with a straggler planted through
// COMMPROF_DELAY_RANK, and the same run without it.

#include "cli_runner.h"
#include "trace/step_metrics.h"
#include "trace/trace_job.h"
#include "trace/trace_reader.h"
#include "trace_builder.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

using namespace commprof::trace;

namespace {

// Three steps of 10 ms with two collectives each, rank r arriving r us after rank 0; `late`
// is added to every start of rank `slow`.
QString rankTrace(int rank, int slow, double late, bool withSeq) {
    TraceBuilder b;
    for (int step = 0; step < 3; ++step) {
        const double t0 = 20000.0 * step;
        b.complete(QString("ProfilerStep#%1").arg(step), t0, 10000, "user_annotation");
        for (int k = 0; k < 2; ++k) {
            const double start = t0 + 1000 + 3000 * k + rank + (rank == slow ? late : 0);
            if (withSeq) {
                // PyTorch 2.4+ numbers each collective of a group: match on that.
                b.raw(QString(R"({"ph":"X","cat":"cpu_op","name":"record_param_comms","ts":%1,)"
                              R"("dur":5,"pid":1,"tid":1,"args":{"Collective name":"allreduce",)"
                              R"("Process Group Name":"0","Seq":%2,"dtype":"Float",)"
                              R"("In msg nelems":1024,"Out msg nelems":1024,"Group size":3}})")
                          .arg(start)
                          .arg(2 * step + k));
            } else {
                b.complete("gloo:all_reduce", start, 5, "cpu_op");
            }
        }
    }
    return b.object();
}

struct Job {
    std::vector<Trace> traces;
    std::vector<TraceSummary> summaries;
    JobAnalysis analysis;
};

Job analyze(std::vector<QString> texts, const std::vector<int>& ranks) {
    Job j;
    for (std::size_t i = 0; i < texts.size(); ++i) {
        j.traces.push_back(parseTraceText(texts[i].toStdString(), "rank" + std::to_string(i)));
    }
    std::vector<const Trace*> ptrs;
    for (const auto& t : j.traces) {
        ptrs.push_back(&t);
        j.summaries.push_back(summarize(t));
    }
    j.analysis = analyzeJob(ptrs, ranks, j.summaries);
    return j;
}

QString writeMatrix(const QTemporaryDir& dir) {
    QString path = dir.filePath("straggler.yaml");
    QFile f(path);
    f.open(QIODevice::WriteOnly);
    // A small model, few iterations, 8 traced steps: 16 gloo all-reduces per rank.
    f.write("name: straggler\n"
            "defaults: {iterations: 14, warmup: 2, batch_size: 16,\n"
            "           trace: {enabled: true, first_step: 4, steps: 8}, timeout_s: 300}\n"
            "models: [{name: tiny, family: mlp, params: 5e5}]\n"
            "layers: [{name: gloo_cpu, backend: gloo, device: cpu}]\n"
            "world_sizes: [4]\n");
    return path;
}

// Runs the matrix with the environment given and summarizes the cell's directory.
QJsonObject runAndSummarize(const QTemporaryDir& dir, const QString& out,
                            const QProcessEnvironment& env) {
    const CliResult run = runCli("commprof", {"run", writeMatrix(dir), "--out", out}, 600000, env);
    if (run.exitCode != 0) {
        qWarning("%s", run.err.constData());
        return {};
    }
    const QString cell = QDir(out + "/cells").entryList(QDir::Dirs | QDir::NoDotAndDotDot).value(0);
    const CliResult s =
        runCli("commprof", {"trace", "summarize", out + "/cells/" + cell, "--json"});
    if (s.exitCode != 0) {
        qWarning("%s", s.err.constData());
        return {};
    }
    return s.json();
}

} // namespace

class TstTraceJob : public QObject {
    Q_OBJECT
private slots:
    void matchedByStepAndOrder() {
        const Job j = analyze(
            {rankTrace(0, 2, 60, false), rankTrace(1, 2, 60, false), rankTrace(2, 2, 60, false)},
            {0, 1, 2});
        QCOMPARE(j.analysis.instances.size(), std::size_t(6));
        for (const auto& i : j.analysis.instances) {
            QCOMPARE(i.arrivals.size(), std::size_t(3));
            QCOMPARE(i.lastRank, 2);
            QCOMPARE(i.firstRank, 0);
            QCOMPARE(i.skewUs, 62.0); // rank 2 at +2 +60, rank 0 at +0
        }
        // Median step 10 ms: the threshold is a quarter of it; rank 2 is late by 62 - 1 us.
        QCOMPARE(j.analysis.medianStepUs, 10000.0);
        QCOMPARE(j.analysis.thresholdUs, 2500.0);
        QCOMPARE(j.analysis.ranks[2].medianLatenessUs, 61.0);
        QCOMPARE(j.analysis.ranks[2].lastArrivals, std::size_t(6));
        QCOMPARE(j.analysis.steps.size(), std::size_t(3));
        for (const auto& v : j.analysis.steps) {
            QCOMPARE(v.slowestRank, std::optional<int>(2));
            QCOMPARE(v.waitUs, 2 * 62.0);
        }
    }

    void lateBeyondAQuarterOfAStepIsAStraggler() {
        // 4 ms late on 10 ms steps: beyond the 2.5 ms bar, every time.
        const Job late = analyze({rankTrace(0, 1, 4000, false), rankTrace(1, 1, 4000, false),
                                  rankTrace(2, 1, 4000, false)},
                                 {0, 1, 2});
        QVERIFY(late.analysis.ranks[1].straggler);
        QVERIFY(!late.analysis.ranks[0].straggler && !late.analysis.ranks[2].straggler);
        // 0.6 ms late: last every time, but it costs the others less than a quarter of a step.
        const Job mild = analyze(
            {rankTrace(0, 1, 600, false), rankTrace(1, 1, 600, false), rankTrace(2, 1, 600, false)},
            {0, 1, 2});
        QCOMPARE(mild.analysis.ranks[1].lastArrivals, std::size_t(6));
        QVERIFY(!mild.analysis.ranks[1].straggler);
    }

    void matchedBySequenceNumber() {
        // With "Seq", order within a step does not matter: drop rank 1's first collective
        // and the others still pair up by number.
        QString r1 = rankTrace(1, 2, 5, true);
        const int first =
            r1.indexOf("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"record_param_comms\"");
        const int end = r1.indexOf("}}", first) + 2;
        r1.remove(first, end - first + 2); // and its ",\n"
        const Job j = analyze({rankTrace(0, 2, 5, true), r1, rankTrace(2, 2, 5, true)}, {0, 1, 2});
        QCOMPARE(j.analysis.instances.size(), std::size_t(6));
        QCOMPARE(j.analysis.instances.front().seq, std::optional<std::int64_t>(0));
        QCOMPARE(j.analysis.instances.front().arrivals.size(), std::size_t(2)); // rank 1 lacks it
        for (std::size_t k = 1; k < j.analysis.instances.size(); ++k) {
            QCOMPARE(j.analysis.instances[k].arrivals.size(), std::size_t(3));
            QCOMPARE(j.analysis.instances[k].lastRank, 2);
        }
    }

    void directoryWithoutTracesIsAClearError() {
        QTemporaryDir dir;
        const CliResult empty = runCli("commprof", {"trace", "summarize", dir.path()});
        QCOMPARE(empty.exitCode, 2);
        QVERIFY2(empty.err.contains("no traces in this directory"), empty.err.constData());
        QVERIFY(empty.err.contains(dir.path().toUtf8()));
        QFile f(dir.filePath("rank0.json"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"rank": 0, "iterations": []})");
        f.close();
        const CliResult onlyRankFiles = runCli("commprof", {"trace", "summarize", dir.path()});
        QCOMPARE(onlyRankFiles.exitCode, 2);
        QVERIFY2(onlyRankFiles.err.contains("no Chrome traces"), onlyRankFiles.err.constData());
    }

    // --launcher slurm where Slurm's sbatch is not on PATH: a message that says what to
    // install, exit 2, and nothing on stdout; the local run of the same folder works.
    void slurmWithoutSbatchSaysWhatToInstall() {
        QTemporaryDir dir;
        for (int r = 0; r < 2; ++r) {
            QFile::link(
                QString(COMMPROF_TEST_DATA "/traces/recorded/convnet_ws2_rank%1.json.gz").arg(r),
                dir.filePath(QString("convnet_ws2_rank%1.json.gz").arg(r)));
        }
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("PATH", dir.filePath("no-such-bin"));
        const CliResult r =
            runCli("commprof", {"trace", "summarize", dir.path(), "--launcher", "slurm", "--json"},
                   60000, env);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.out.isEmpty(), r.out.constData());
        QVERIFY2(r.err.contains("sbatch") && r.err.contains("install") &&
                     r.err.contains("slurm-client"),
                 r.err.constData());
        QVERIFY(
            runCli("commprof", {"trace", "summarize", dir.path(), "--json"}, 60000, env).exitCode ==
            0);
        // Only with --launcher slurm do its own flags mean anything.
        const CliResult stray =
            runCli("commprof", {"trace", "summarize", dir.path(), "--reduced", dir.path()});
        QCOMPARE(stray.exitCode, 2);
        QVERIFY2(stray.err.contains("--reduced: only with --launcher slurm"),
                 stray.err.constData());
    }

    // A real run at world size 4, once with rank 2 sleeping 500 ms before each forward
    // (COMMPROF_DELAY_RANK, inherited by the runner's ranks), once without.
    void plantedStragglerIsFlagged() {
        QTemporaryDir dir;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("COMMPROF_DELAY_RANK", "2:500");
        const QJsonObject job = runAndSummarize(dir, dir.filePath("delayed"), env);
        QVERIFY(!job.isEmpty());
        QCOMPARE(job["ranks"].toArray().size(), 4);
        QVERIFY(job["skew"]["instances"].toInt() >= 12);
        const QJsonArray stragglers = job["stragglers"].toArray();
        QCOMPARE(stragglers.size(), 1);
        QCOMPARE(stragglers[0]["rank"].toInt(), 2);
        // Its lateness is the planted delay, give or take the machine's noise.
        const double lateMs = stragglers[0]["median_lateness_us"].toDouble() / 1000.0;
        QVERIFY2(lateMs > 350 && lateMs < 650, qPrintable(QString::number(lateMs)));
        for (const auto& v : job["steps"].toArray()) {
            QCOMPARE(v.toObject()["slowest_rank"].toInt(), 2);
        }
    }

    void noStragglerWithoutTheDelay() {
        QTemporaryDir dir;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove("COMMPROF_DELAY_RANK");
        const QJsonObject job = runAndSummarize(dir, dir.filePath("plain"), env);
        QVERIFY(!job.isEmpty());
        QVERIFY(job["skew"]["instances"].toInt() >= 12);
        QVERIFY2(job["stragglers"].toArray().isEmpty(),
                 QJsonDocument(job["lateness"].toArray()).toJson().constData());
    }
};

QTEST_GUILESS_MAIN(TstTraceJob)
#include "tst_trace_job.moc"
