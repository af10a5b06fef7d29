// SPDX-License-Identifier: GPL-3.0-or-later
// A job summarized from its ranks' reductions (each trace reduced as it is read, its events
// dropped) against the same job computed one rank at a time from whole traces: every rank's
// document equals `trace summarize FILE` of that file alone, field for field, and the
// cross-rank analysis equals the one over all ranks' whole traces at once. Real traces: the
// recorded DDP jobs (gloo, world sizes 2 and 3), the TensorBoard plugin's four-worker samples
// and HTA's two-rank test job; with and without --window and --hta. And what a reduction
// holds: the rank's records and figures, nothing sized by its events.

#include "cli_runner.h"
#include "shared_fixtures.h"
#include "trace/job_json.h"
#include "trace/rank_reduction.h"
#include "trace/reduction_json.h"
#include "trace/step_metrics.h"
#include "trace/summary_json.h"
#include "trace/trace_job.h"
#include "trace/trace_reader.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <limits>
#include <type_traits>

using namespace commprof::trace;

namespace {

const QString kTraces = COMMPROF_TEST_DATA "/traces";

// A member named `events` or `trace` would be a rank's events kept with its reduction.
template <class T, class = void> struct HasEvents : std::false_type {};
template <class T>
struct HasEvents<T, std::void_t<decltype(std::declval<T>().events)>> : std::true_type {};
template <class T, class = void> struct HasTrace : std::false_type {};
template <class T>
struct HasTrace<T, std::void_t<decltype(std::declval<T>().trace)>> : std::true_type {};
static_assert(!HasEvents<RankReduction>::value && !HasTrace<RankReduction>::value);
static_assert(!HasEvents<LoadedReduction>::value && !HasTrace<LoadedReduction>::value);
static_assert(HasTrace<LoadedTrace>::value); // the detector itself sees a member that is there

// A job's folder: links to the given files, under their own names.
QString jobFolder(const QTemporaryDir& dir, const QString& name, const QStringList& files) {
    const QString folder = dir.filePath(name);
    QDir().mkpath(folder);
    for (const QString& f : files) {
        QFile::link(f, folder + "/" + QFileInfo(f).fileName());
    }
    return folder;
}

// Field by field, naming the first path that differs.
QString firstDifference(const QJsonValue& a, const QJsonValue& b, const QString& at) {
    if (a.type() != b.type()) {
        return at + ": types differ";
    }
    if (a.isObject()) {
        const QJsonObject x = a.toObject(), y = b.toObject();
        if (x.keys() != y.keys()) {
            return at + ": keys differ (" + x.keys().join(",") + " / " + y.keys().join(",") + ")";
        }
        for (const QString& k : x.keys()) {
            const QString d = firstDifference(x[k], y[k], at + "." + k);
            if (!d.isEmpty()) {
                return d;
            }
        }
        return {};
    }
    if (a.isArray()) {
        const QJsonArray x = a.toArray(), y = b.toArray();
        if (x.size() != y.size()) {
            return at + QString(": %1 elements / %2").arg(x.size()).arg(y.size());
        }
        for (int i = 0; i < x.size(); ++i) {
            const QString d = firstDifference(x[i], y[i], at + QString("[%1]").arg(i));
            if (!d.isEmpty()) {
                return d;
            }
        }
        return {};
    }
    return a == b ? QString()
                  : at + ": " + QJsonDocument(QJsonArray{a}).toJson(QJsonDocument::Compact) +
                        " / " + QJsonDocument(QJsonArray{b}).toJson(QJsonDocument::Compact);
}

QStringList recorded(const QString& set, const QString& job, int worldSize) {
    QStringList out;
    for (int r = 0; r < worldSize; ++r) {
        out << kTraces + QString("/%1/%2_rank%3.json.gz").arg(set, job).arg(r);
    }
    return out;
}

QStringList tracesIn(const QString& folder) {
    QStringList out;
    for (const std::string& f : traceFilesIn(folder.toStdString())) {
        out << QString::fromStdString(f);
    }
    return out;
}

} // namespace

class TstTraceReduction : public QObject {
    Q_OBJECT
private slots:
    void jobEqualsRankByRank_data() {
        QTest::addColumn<QStringList>("files");
        QTest::addColumn<QStringList>("options");
        const QString corpus = kTraces + "/corpus";
        const QStringList mlp3 = recorded("recorded", "mlp4x512_ws3", 2);
        QTest::newRow("recorded mlp4x512") << mlp3 << QStringList{};
        QTest::newRow("recorded mlp4x512 --hta") << mlp3 << QStringList{"--hta"};
        QTest::newRow("recorded mlp4x512 --window")
            << mlp3 << QStringList{"--window", "150000:400000"};
        QTest::newRow("recorded convnet ws2")
            << recorded("recorded", "convnet_ws2", 2) << QStringList{};
        QTest::newRow("torch 2.6 mlp ws2 --hta")
            << recorded("recorded_2_6", "mlp7x256_ws2", 2) << QStringList{"--hta"};
        QTest::newRow("tb_plugin 4 workers --hta")
            << tracesIn(corpus + "/kineto/tb_plugin/samples/resnet50_num_workers_4")
            << QStringList{"--hta"};
        QTest::newRow("hta two ranks --hta")
            << tracesIn(corpus + "/hta_tests/trace_filter") << QStringList{"--hta"};
    }

    void jobEqualsRankByRank() {
        QFETCH(QStringList, files);
        QFETCH(QStringList, options);
        QVERIFY(files.size() >= 2);
        QTemporaryDir dir;
        const QString folder = jobFolder(dir, "job", files);
        const CliResult job =
            runCli("commprof", QStringList{"trace", "summarize", folder, "--json"} + options);
        QVERIFY2(job.exitCode == 0, job.err.constData());
        const QJsonObject doc = job.json();
        const QJsonArray rankDocs = doc["ranks"].toArray();
        QCOMPARE(rankDocs.size(), files.size());

        // Each rank alone, as `trace summarize FILE` reads it whole.
        const QStringList linked = tracesIn(folder);
        for (int i = 0; i < linked.size(); ++i) {
            const CliResult one = runCli(
                "commprof", QStringList{"trace", "summarize", linked[i], "--json"} + options);
            QVERIFY2(one.exitCode == 0, one.err.constData());
            QJsonObject mine = rankDocs[i].toObject();
            mine.remove("rank");
            const QString d = firstDifference(mine, one.json(), QFileInfo(linked[i]).fileName());
            QVERIFY2(d.isEmpty(), qPrintable(d));
        }

        // The cross-rank part from every rank's whole trace at once.
        std::optional<Span> window;
        if (const int w = options.indexOf("--window"); w >= 0) {
            const QStringList parts = options[w + 1].split(':');
            window = Span{parts[0].toDouble(), parts[1].toDouble()};
        }
        std::vector<Trace> traces;
        std::vector<TraceSummary> sums;
        std::vector<const Trace*> ptrs;
        std::vector<int> ranks;
        for (const QString& f : linked) {
            traces.push_back(readTraceFile(f.toStdString()));
        }
        for (const Trace& t : traces) {
            ptrs.push_back(&t);
            sums.push_back(summarize(t, window));
            ranks.push_back(rankDocs[int(ranks.size())].toObject()["rank"].toInt());
        }
        QJsonObject whole = toJson(analyzeJob(ptrs, ranks, sums, window));
        QJsonObject reduced = doc;
        reduced.remove("ranks");
        // Notes about the folder (a rank numbered twice) are the command's, not the analysis'.
        reduced.remove("job_warnings");
        whole.remove("job_warnings");
        const QString d = firstDifference(reduced, whole, "job");
        QVERIFY2(d.isEmpty(), qPrintable(d));
        QVERIFY(doc["skew"].toObject()["instances"].toInt() > 0 ||
                QTest::currentDataTag() == QString("tb_plugin 4 workers --hta"));
    }

    // What a rank's reduction holds: its figures, and per collective a small record for the
    // matching across ranks, as many as the trace has collectives; nothing per event.
    void reductionHoldsNoEvents() {
        REQUIRE_FIXTURE(kLargeSharedTrace);
        const std::string path = kLargeSharedTrace.toStdString();
        const Trace trace = readTraceFile(path);
        const RankReduction r = reduceTrace(trace, std::nullopt, true);
        QCOMPARE(r.arrivals.size(), trace.collectives.size());
        QCOMPARE(r.collectives, trace.collectives.size());
        QCOMPARE(r.summary.steps.size(), stepWindows(trace).size());
        QVERIFY(r.hta.has_value());
        QCOMPARE(r.source, trace.source);
        std::size_t rest = sizeof r + r.summary.steps.capacity() * sizeof(StepMetrics) +
                           r.byKind.capacity() * sizeof(KindSummary);
        for (const std::string& n : r.names) {
            rest += sizeof n + n.capacity();
        }
        const std::size_t perCollective = r.arrivals.capacity() * sizeof(CollectiveArrival);
        const std::size_t eventBytes = trace.events.size() * sizeof(TraceEvent);
        QVERIFY2(trace.events.size() > 100000, "the fixture is the large trace");
        QVERIFY2(sizeof(CollectiveArrival) <= 48 && rest < 16384 && perCollective * 25 < eventBytes,
                 qPrintable(QString("reduction %1 + %2 bytes for %3 collectives, events %4 bytes")
                                .arg(rest)
                                .arg(perCollective)
                                .arg(r.arrivals.size())
                                .arg(eventBytes)));

        // Read as a job, the reductions come back with no trace kept.
        const std::vector<LoadedReduction> read =
            readReductions({path, path}, ReadOptions(), std::nullopt, false, 2);
        QCOMPARE(read.size(), std::size_t(2));
        for (const LoadedReduction& l : read) {
            QVERIFY2(l.reduction, l.error.c_str());
            QCOMPARE(l.reduction->arrivals.size(), trace.collectives.size());
            QVERIFY(!l.reduction->hta);
        }
    }

    // A file that fails is named and never stops the others, as readTraces did.
    void failuresAreNamed() {
        QTemporaryDir dir;
        const QString bad = dir.filePath("rank1.json");
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"traceEvents\": [ {\"ph\": \"X\", ");
        f.close();
        const QString notTrace = dir.filePath("manifest.json");
        QFile m(notTrace);
        QVERIFY(m.open(QIODevice::WriteOnly));
        m.write("{\"cells\": []}");
        m.close();
        const std::string good = (kTraces + "/recorded/convnet_ws2_rank0.json.gz").toStdString();
        const auto read = readReductions({good, bad.toStdString(), notTrace.toStdString()},
                                         ReadOptions(), std::nullopt, false, 2);
        QVERIFY(read[0].reduction);
        QVERIFY(!read[1].reduction);
        QVERIFY2(QString::fromStdString(read[1].error).contains("rank1.json"),
                 read[1].error.c_str());
        QVERIFY(!read[2].reduction);
        QVERIFY(read[2].notATrace);
    }
    // A reduction written by `trace reduce` and read back is the same value: every figure of
    // the rank's document and every arrival, compared with the reduction made here from the
    // whole trace (HTA's figures and a window included); values JSON numbers cannot hold
    // (NaN, infinities, -0) come back as they were.
    void reductionFileRoundTrips() {
        QTemporaryDir dir;
        const QString trace = kTraces + "/recorded/mlp4x512_ws3_rank1.json.gz";
        const QString out = dir.filePath("r.json");
        const CliResult r = runCli("commprof", {"trace", "reduce", trace, "--out", out, "--hta",
                                                "--window", "150000:400000"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const ReducedFile read = readReductionFile(out);
        QVERIFY(read.reduction);
        QCOMPARE(read.source, trace.toStdString());
        QVERIFY(read.terms.withHta && read.terms.window);
        QCOMPARE(read.terms.window->start, 150000.0);
        const RankReduction here =
            reduceTrace(readTraceFile(trace.toStdString()), Span{150000, 400000}, true);
        const RankReduction& there = *read.reduction;
        QVERIFY(!here.arrivals.empty());
        QCOMPARE(there.arrivals.size(), here.arrivals.size());
        for (std::size_t i = 0; i < here.arrivals.size(); ++i) {
            const CollectiveArrival &a = here.arrivals[i], &b = there.arrivals[i];
            QVERIFY(a.startUs == b.startUs && a.seq == b.seq && a.step == b.step &&
                    a.ordinal == b.ordinal && here.names[a.kind] == there.names[b.kind] &&
                    here.names[a.processGroup] == there.names[b.processGroup]);
        }
        QCOMPARE(there.rank, here.rank);
        QCOMPARE(there.collectives, here.collectives);
        const QString d = firstDifference(toJson(there.summary), toJson(here.summary), "summary");
        QVERIFY2(d.isEmpty(), qPrintable(d));
        QVERIFY(there.hta && here.hta);
        QCOMPARE(QJsonValue(toJson(*there.hta)), QJsonValue(toJson(*here.hta)));
        QCOMPARE(there.hta->deviceEvents, here.hta->deviceEvents);
        QCOMPARE(QJsonValue(toJson(there.byKind)), QJsonValue(toJson(here.byKind)));
        QCOMPARE(QJsonValue(toJson(there.distributed)), QJsonValue(toJson(here.distributed)));

        ReducedFile odd = read;
        StepMetrics& m = odd.reduction->summary.steps.front();
        m.computeUs = std::numeric_limits<double>::quiet_NaN();
        m.commUs = -std::numeric_limits<double>::infinity();
        m.memoryUs = -0.0;
        m.overlapEfficiency = std::numeric_limits<double>::infinity();
        const ReducedFile back = parseReduction(reductionDocument(odd), "odd.json");
        const StepMetrics& n = back.reduction->summary.steps.front();
        QVERIFY(std::isnan(n.computeUs));
        QVERIFY(std::isinf(n.commUs) && n.commUs < 0);
        QVERIFY(n.memoryUs == 0 && std::signbit(n.memoryUs));
        QVERIFY(n.overlapEfficiency && std::isinf(*n.overlapEfficiency));
        QCOMPARE(n.stepUs, m.stepUs);
    }

    // A reduction that is damaged, of another version, or not one, is refused with its file and
    // the line (bad JSON) or the field; a JSON file that is not a trace is recorded as such.
    void badReductionsNameFileAndField() {
        QTemporaryDir dir;
        const QString out = dir.filePath("r.json");
        QVERIFY(runCli("commprof", {"trace", "reduce",
                                    kTraces + "/recorded/convnet_ws2_rank0.json.gz", "--out", out})
                    .exitCode == 0);
        QFile f(out);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray good = f.readAll();
        auto refusal = [](const QByteArray& bytes) {
            try {
                parseReduction(bytes, "bad.json");
            } catch (const TraceError& e) {
                return QString::fromStdString(e.what());
            }
            return QString("accepted");
        };
        QJsonObject doc = QJsonDocument::fromJson(good).object();
        QJsonObject reduction = doc["reduction"].toObject();
        QJsonObject summary = reduction["summary"].toObject();
        QJsonArray steps = summary["steps"].toArray();
        QJsonObject step = steps[1].toObject();
        step.remove("step_us");
        steps[1] = step;
        summary["steps"] = steps;
        reduction["summary"] = summary;
        QJsonObject missing = doc;
        missing["reduction"] = reduction;
        QCOMPARE(refusal(QJsonDocument(missing).toJson()),
                 QString("bad.json: field 'reduction.summary.steps[1].step_us': missing"));
        QJsonObject wrongType = doc;
        QJsonObject r2 = doc["reduction"].toObject();
        r2["collectives"] = "many";
        wrongType["reduction"] = r2;
        QCOMPARE(refusal(QJsonDocument(wrongType).toJson()),
                 QString("bad.json: field 'reduction.collectives': expected an integer"));
        QJsonObject badIndex = doc;
        QJsonObject r3 = doc["reduction"].toObject();
        QJsonArray arrivals = r3["arrivals"].toArray();
        QJsonArray first = arrivals[0].toArray();
        first[1] = 99;
        arrivals[0] = first;
        r3["arrivals"] = arrivals;
        badIndex["reduction"] = r3;
        QVERIFY2(refusal(QJsonDocument(badIndex).toJson())
                     .startsWith("bad.json: field 'reduction.arrivals[0][1]': 99 is out of range"),
                 qPrintable(refusal(QJsonDocument(badIndex).toJson())));
        QJsonObject later = doc;
        later["version"] = 1; // total_bytes 0 where the kind had no size
        QVERIFY(refusal(QJsonDocument(later).toJson())
                    .startsWith("bad.json: field 'version': version 1 is not the 2"));
        const QString syntax =
            refusal("{\"format\": \"commprof-trace-reduction\",\n\"version\": 2,\n  ]");
        QVERIFY2(syntax.startsWith("bad.json: line 3: not JSON: "), qPrintable(syntax));

        // Valid JSON that is not a trace: recorded, exit 0; a file that cannot be read: exit 2,
        // nothing written.
        const QString rankFile = dir.filePath("rank0.json");
        QFile rf(rankFile);
        QVERIFY(rf.open(QIODevice::WriteOnly));
        rf.write(R"({"rank": 0, "iterations": []})");
        rf.close();
        const QString noted = dir.filePath("noted.json");
        QCOMPARE(runCli("commprof", {"trace", "reduce", rankFile, "--out", noted}).exitCode, 0);
        const ReducedFile n = readReductionFile(noted);
        QVERIFY(!n.reduction);
        QVERIFY2(QString::fromStdString(n.notATrace).contains("rank0.json"), n.notATrace.c_str());
        const QString none = dir.filePath("none.json");
        const CliResult missingTrace =
            runCli("commprof", {"trace", "reduce", dir.filePath("nosuch.json"), "--out", none});
        QCOMPARE(missingTrace.exitCode, 2);
        QVERIFY(missingTrace.err.contains("nosuch.json"));
        QVERIFY(!QFile::exists(none));
    }
};

QTEST_GUILESS_MAIN(TstTraceReduction)
#include "tst_trace_reduction.moc"
