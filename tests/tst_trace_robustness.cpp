// Bad input gives a clear error naming the file, or a partial result with warnings; never a
// crash, a hang or a NaN.

#include "gzip_files.h"
#include "trace/step_metrics.h"
#include "trace/trace_reader.h"
#include "trace_builder.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace commprof::trace;

namespace {

// Everything parsed from a text, as one comparable string.
QString fingerprint(const Trace& t) {
    QString out;
    for (const auto& e : t.events) {
        out += QString("%1|%2|%3|%4|%5|%6|%7|%8|%9|%10\n")
                   .arg(e.startUs, 0, 'f', 3)
                   .arg(e.endUs, 0, 'f', 3)
                   .arg(QString::fromStdString(t.name(e)), QString::fromStdString(t.category(e)))
                   .arg(QString::fromStdString(t.idText(e.pid)),
                        QString::fromStdString(t.idText(e.tid)))
                   .arg(e.correlation)
                   .arg(e.offset)
                   .arg(int(e.cls))
                   .arg(int(e.flags));
    }
    for (const auto& f : t.flows) {
        out += QString("flow %1 %2\n").arg(f.launch).arg(f.device);
    }
    out += QString("comms %1 collectives %2 processes %3 threads %4 float %5\n")
               .arg(t.comms.size())
               .arg(t.collectives.size())
               .arg(t.processes.size())
               .arg(t.threads.size())
               .arg(t.htaFacts.tsColumnIsFloat);
    for (const auto& w : t.warnings) {
        out += QString::fromStdString(w) + "\n";
    }
    return out;
}

// What parsing gives: the fingerprint, or the error.
QString outcome(std::string_view text, ParseOptions options) {
    try {
        return fingerprint(parseTraceText(text, "t", options));
    } catch (const TraceError& e) {
        return QString("error: ") + e.what();
    }
}

// The same text parsed in one pass and in small checked chunks on several threads.
void expectSameInChunks(const QByteArray& text, const QString& what) {
    const std::string_view view(text.constData(), std::size_t(text.size()));
    const QString serial = outcome(view, ParseOptions{1, std::size_t(1) << 40}); // one pass
    for (const auto& [threads, chunk] : {std::pair{2, std::size_t(64)},
                                         {3, std::size_t(777)},
                                         {2, std::size_t(4096)},
                                         {2, std::size_t(65536)}}) {
        if (chunk < 1024 && text.size() > (256 << 10)) {
            continue; // tiny chunks on a large text only cost time
        }
        const QString chunked = outcome(view, ParseOptions{threads, chunk});
        QVERIFY2(chunked == serial, qPrintable(QString("%1: %2 threads, %3-byte chunks differ")
                                                   .arg(what)
                                                   .arg(threads)
                                                   .arg(chunk)));
    }
}

// Many events in Kineto's layout (one field per line), some with arrays of objects in their
// args laid out so that a chunk boundary guess can land inside them.
QByteArray kinetoLike(int events) {
    QByteArray out = "{\n  \"schemaVersion\": 1,\n  \"traceEvents\": [\n";
    for (int i = 0; i < events; ++i) {
        out += QString("  {\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::op%1\", "
                       "\"pid\": 1, \"tid\": %2,\n    \"ts\": %3, \"dur\": 2,\n    "
                       "\"args\": {\n      \"list\": [\n{\"a\": 1},\n{\"b\": \"x, {y}\"}],\n"
                       "      \"External id\": %1\n    }\n  }%4\n")
                   .arg(i)
                   .arg(i % 3)
                   .arg(i * 3)
                   .arg(i + 1 < events ? "," : "")
                   .toUtf8();
    }
    out += "  ],\n  \"traceName\": \"x\"\n}\n";
    return out;
}

} // namespace

class TstTraceRobustness : public QObject {
    Q_OBJECT
private slots:
    void badInputIsAClearError_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("expect");
        QTest::newRow("empty") << QByteArray() << "empty file";
        QTest::newRow("spaces") << QByteArray("   \n") << "empty file";
        QTest::newRow("not json") << QByteArray("hello, world") << "not valid JSON";
        QTest::newRow("number") << QByteArray("42") << "neither an object nor an array";
        QTest::newRow("object without events") << QByteArray(R"({"foo": 1})") << "no 'traceEvents'";
        QTest::newRow("events not array") << QByteArray(R"({"traceEvents": 3})") << "not an array";
        QTest::newRow("truncated at start")
            << QByteArray("{\"traceEvents\":[{\"ph\":\"X\",\"na") << "not valid JSON";
    }
    void badInputIsAClearError() {
        QFETCH(QByteArray, content);
        QFETCH(QString, expect);
        QTemporaryDir dir;
        const QString path = dir.filePath("bad.json");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(content);
        f.close();
        try {
            readTraceFile(path.toStdString());
            QFAIL("expected a TraceError");
        } catch (const TraceError& e) {
            const QString msg = e.what();
            QVERIFY2(msg.contains(path), qPrintable(msg));
            QVERIFY2(msg.contains(expect), qPrintable(msg));
        }
    }

    void missingFileNamesIt() {
        try {
            readTraceFile("/nonexistent/trace.json");
            QFAIL("expected a TraceError");
        } catch (const TraceError& e) {
            QVERIFY(QString(e.what()).contains("/nonexistent/trace.json"));
        }
    }

    void truncatedJsonKeepsWhatWasRead() {
        QString text = TraceBuilder()
                           .complete("ProfilerStep#1", 0, 100)
                           .complete("aten::mm", 0, 10)
                           .complete("gloo:all_reduce", 10, 10)
                           .complete("aten::mm", 30, 10)
                           .object();
        text.chop(30); // cuts into the last event
        const Trace t = parseTraceText(text.toStdString(), "cut.json");
        QCOMPARE(t.events.size(), std::size_t(3));
        QCOMPARE(t.warnings.size(), std::size_t(1));
        QVERIFY2(QString::fromStdString(t.warnings[0]).contains("input ends early"),
                 t.warnings[0].c_str());
        const TraceSummary s = summarize(t);
        QCOMPARE(s.totals.computeUs, 10.0);
        QCOMPARE(s.totals.commUs, 10.0);
    }

    void truncatedGzipIsPartialWithWarning() {
        TraceBuilder b;
        b.complete("ProfilerStep#1", 0, 100);
        for (int i = 0; i < 20000; ++i) {
            b.complete("aten::add", i, 1);
        }
        const QString text = b.object();
        QTemporaryDir dir;
        const QString path = dir.filePath("cut.json.gz");
        const QByteArray raw = text.toUtf8();
        gzFile gz = gzopen(path.toLocal8Bit().constData(), "wb");
        gzwrite(gz, raw.constData(), unsigned(raw.size()));
        gzclose(gz);
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadWrite));
        f.resize(f.size() / 2);
        f.close();
        const Trace t = readTraceFile(path.toStdString());
        QVERIFY(t.events.size() > 1000 && t.events.size() < 20001);
        bool said = false;
        for (const auto& w : t.warnings) {
            said = said || QString::fromStdString(w).contains("input ends early");
        }
        QVERIFY(said);
    }

    void unrepairableJsonIsAClearError() {
        // Cut inside the first event: nothing complete to keep.
        try {
            parseTraceText(R"({"traceEvents":[{"ph":"X","name":"aten::mm","ts":1)", "early.json");
            QFAIL("expected a TraceError");
        } catch (const TraceError& e) {
            QVERIFY(QString(e.what()).contains("early.json: not valid JSON"));
        }
    }

    void negativeDurationsAndAbsurdTimesAreDroppedWithWarnings() {
        const QString text =
            TraceBuilder()
                .complete("ProfilerStep#1", 0, 100)
                .complete("aten::mm", 0, 10)
                .raw(R"({"ph":"X","name":"aten::mm","ts":5,"dur":-3,"pid":1,"tid":1})")
                .raw(R"({"ph":"X","name":"aten::mm","ts":1e300,"dur":3,"pid":1,"tid":1})")
                .raw(R"({"ph":"X","name":"aten::mm","ts":"abc","dur":3,"pid":1,"tid":1})")
                .raw(R"({"ph":"X","name":"aten::mm","dur":3,"pid":1,"tid":1})")
                .raw(R"({"ph":"E","ts":50,"pid":9,"tid":9})")
                .raw(R"({"ph":"B","name":"aten::x","ts":50,"pid":9,"tid":9})")
                .raw(R"(17)")
                .object();
        const Trace t = parseTraceText(text.toStdString(), "odd.json");
        QCOMPARE(t.events.size(), std::size_t(2));
        QString all;
        for (const auto& w : t.warnings) {
            all += QString::fromStdString(w) + "\n";
        }
        QVERIFY2(all.contains("negative duration"), qPrintable(all));
        QVERIFY2(all.contains("absurd timestamp"), qPrintable(all));
        QVERIFY2(all.contains("without a matching 'E'"), qPrintable(all));
        QVERIFY2(all.contains("without a matching 'B'"), qPrintable(all));
        QVERIFY2(all.contains("not objects"), qPrintable(all));
        const TraceSummary s = summarize(t);
        QCOMPARE(s.totals.computeUs, 10.0);
    }

    void quotedAndStringIdsAreAccepted() {
        const QString text =
            R"({"traceEvents":[{"ph":"X","name":"aten::mm","ts":"12.5","dur":"2","pid":"host","tid":"main"}]})";
        const Trace t = parseTraceText(text.toStdString(), "quoted.json");
        QCOMPARE(t.events.size(), std::size_t(1));
        QCOMPARE(t.events[0].startUs, 12.5);
        QVERIFY(t.events[0].pid < 0);
    }

    // The fuzzer's corpus (tests/data/fuzz) replayed on every run: each input either parses or
    // is refused with a TraceError, and nothing computed from it is NaN.
    void fuzzCorpusReplays() {
        const QDir dir(COMMPROF_TEST_DATA "/fuzz");
        const QStringList files = dir.entryList(QDir::Files);
        QVERIFY(files.size() >= 5);
        for (const QString& name : files) {
            QFile f(dir.filePath(name));
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QByteArray bytes = f.readAll();
            expectSameInChunks(bytes, name);
            try {
                const TraceSummary s = summarize(
                    parseTraceText(std::string_view(bytes.constData(), std::size_t(bytes.size())),
                                   name.toStdString()));
                for (const auto& m : s.steps) {
                    QVERIFY(!std::isnan(m.computeUs) && !std::isnan(m.commUs));
                }
            } catch (const TraceError& e) {
                QVERIFY(QString(e.what()).contains(name));
            }
        }
    }

    // Chunks on several threads give exactly what one pass gives: on a real trace, on a
    // layout that puts "},\n{" inside events, on a text broken in the middle, and on one cut
    // off mid-string.
    void chunkedParsingMatchesOnePass() {
        expectSameInChunks(gunzip(COMMPROF_TEST_DATA "/traces/kineto_nccl_ddp_ws2_rank0.json.gz"),
                           "real trace");
        const QByteArray layout = kinetoLike(3000);
        expectSameInChunks(layout, "nested lists");
        QByteArray broken = layout;
        broken.insert(broken.size() / 2, "\n@@@\n");
        expectSameInChunks(broken, "broken in the middle");
        QByteArray cut = layout.left(layout.size() * 2 / 3);
        cut.append("    \"name\": \"unfinis");
        expectSameInChunks(cut, "cut off mid-string");
        const Trace t =
            parseTraceText(std::string_view(broken.constData(), std::size_t(broken.size())),
                           "broken", ParseOptions{2, 4096});
        QVERIFY(t.events.size() > 1000 && t.events.size() < 3000);
        QVERIFY(QString::fromStdString(t.warnings.back()).contains("JSON breaks at byte"));
    }

    void emptyEventListGivesNoNaN() {
        const TraceSummary s = summarize(parseTraceText(R"({"traceEvents":[]})", "none.json"));
        QVERIFY(s.steps.empty());
        QVERIFY(!s.totals.overlapEfficiency.has_value());
        QVERIFY(!s.totals.commOverheadFraction.has_value());
        QVERIFY(!s.warnings.empty());
    }
};

QTEST_APPLESS_MAIN(TstTraceRobustness)
#include "tst_trace_robustness.moc"
