// SPDX-License-Identifier: GPL-3.0-or-later
// Bad input gives a clear error naming the file, or a partial result with warnings; never a
// crash, a hang or a NaN.

#include "gzip_files.h"
#include "trace/step_metrics.h"
#include "trace/trace_reader.h"
#include "trace/trace_stream.h"
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
    out += QString("text %1 array %2 rank %3 world %4 backend %5 producer %6\n")
               .arg(t.textBytes)
               .arg(t.htaFacts.rootIsArray)
               .arg(t.distributed.rank.value_or(-1))
               .arg(t.distributed.worldSize.value_or(-1))
               .arg(QString::fromStdString(t.distributed.backend))
               .arg(t.producerRank.value_or(-1));
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

// A step of compute and communication, one event a line.
TraceBuilder oneStep(int events) {
    TraceBuilder b;
    b.complete("ProfilerStep#1", 0, 100);
    for (int i = 0; i < events; ++i) {
        b.complete(i % 2 ? "aten::mm" : "nccl:all_reduce", i / 3.0, 0.25);
    }
    return b;
}

QByteArray gzipText(const QByteArray& text) {
    return gzipMember(text, ' ', 0);
}

void writeFile(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(bytes);
}

// What the whole-text path gives for a file: all of it inflated into memory, then parsed in one
// pass.
QString wholeTextOutcome(const QString& path) {
    try {
        PaddedBuffer buf = readTraceText(path.toStdString(), ReadOptions());
        Trace t = parseTraceBuffer(buf, path.toStdString(), ParseOptions{1, std::size_t(1) << 40});
        finishTrace(t);
        return fingerprint(t);
    } catch (const TraceError& e) {
        return QString("error: ") + e.what();
    }
}

enum class Streams { Always, Never, Maybe };

// A file read in pieces as it is inflated gives exactly what the whole-text path gives, or is
// left to that path: as plain text and as gzip, in pieces of several sizes on several threads.
void expectStreamedAsWhole(const QByteArray& text, const QString& what, Streams streams) {
    QTemporaryDir dir;
    const QString plain = dir.filePath("t.json");
    const QString gz = dir.filePath("t.json.gz");
    writeFile(plain, text);
    writeFile(gz, gzipText(text));
    for (const QString& path : {plain, gz}) {
        const QString whole = wholeTextOutcome(path);
        for (const auto& [threads, piece] : {std::pair{1, std::size_t(64)},
                                             {2, std::size_t(777)},
                                             {3, std::size_t(4096)},
                                             {2, std::size_t(1) << 20}}) {
            if (piece < 4096 && text.size() > (256 << 10)) {
                continue; // tiny pieces on a large text only cost time
            }
            const QString how = QString("%1 (%2): %3 threads, %4-byte pieces")
                                    .arg(what, path.endsWith(".gz") ? "gzip" : "plain")
                                    .arg(threads)
                                    .arg(piece);
            std::optional<Trace> t;
            try {
                t = readTraceStreamed(path.toStdString(), StreamOptions{threads, piece});
            } catch (const TraceError& e) {
                QVERIFY2(whole == QString("error: ") + e.what(), qPrintable(how));
                continue;
            }
            QVERIFY2(t.has_value() || streams != Streams::Always,
                     qPrintable(how + ": left to the whole-text path"));
            QVERIFY2(!t.has_value() || streams != Streams::Never,
                     qPrintable(how + ": read in pieces"));
            if (t) {
                finishTrace(*t);
                QVERIFY2(fingerprint(*t) == whole, qPrintable(how + ": differs"));
            }
        }
        QString read;
        try {
            read = fingerprint(readTraceFile(path.toStdString()));
        } catch (const TraceError& e) {
            read = QString("error: ") + e.what();
        }
        QVERIFY2(read == whole, qPrintable(what + ": readTraceFile differs"));
    }
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
    // is refused with a TraceError, the same in chunks, read from a file in pieces, or whole, and
    // nothing computed from it is NaN.
    void fuzzCorpusReplays() {
        const QDir dir(COMMPROF_TEST_DATA "/fuzz");
        const QStringList files = dir.entryList(QDir::Files);
        QVERIFY(files.size() >= 5);
        for (const QString& name : files) {
            QFile f(dir.filePath(name));
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QByteArray bytes = f.readAll();
            expectSameInChunks(bytes, name);
            expectStreamedAsWhole(bytes, name, Streams::Maybe);
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

    // Reading a file in pieces while it is inflated gives what reading it whole gives, and
    // leaves every file that is not sound to the whole-text path.
    void streamedReadMatchesWholeText() {
        const QByteArray real =
            gunzip(COMMPROF_TEST_DATA "/traces/kineto_nccl_ddp_ws2_rank0.json.gz");
        QVERIFY(real.size() > (1 << 20));
        expectStreamedAsWhole(real, "real trace", Streams::Always);
        const TraceBuilder b = oneStep(300);
        expectStreamedAsWhole(b.object().toUtf8(), "one event a line", Streams::Always);
        expectStreamedAsWhole(b.array().toUtf8(), "bare array", Streams::Always);
        QByteArray crlf = b.object().toUtf8();
        crlf.replace("\n", "\r\n");
        expectStreamedAsWhole(crlf, "CRLF lines", Streams::Always);
        expectStreamedAsWhole(R"({"traceEvents": [ ]})", "no events", Streams::Always);
        QByteArray single = b.object().toUtf8();
        single.replace('\n', ' ');
        expectStreamedAsWhole(single, "one line", Streams::Always);
        // Keys around the events, distributedInfo after them, and a long head.
        QByteArray around = b.object().toUtf8();
        around.insert(1, "\"deviceProperties\": [" + QByteArray(5000, ' ') +
                             "{\"id\": 0}],\n\"otherData\": {\"rank\": 3},\n");
        around.insert(around.size() - 1,
                      ",\n\"distributedInfo\": {\"rank\": 1, \"world_size\": 4, \"backend\": "
                      "\"nccl\"}");
        expectStreamedAsWhole(around, "keys around the events", Streams::Always);
        // A boundary guessed inside an event's args, and inside an array after traceEvents
        // that holds what look like events: the guess must not hold.
        const QByteArray nested = kinetoLike(3000);
        expectStreamedAsWhole(nested, "nested lists", Streams::Maybe);
        QByteArray after = b.object().toUtf8();
        after.insert(after.size() - 1, ",\n\"more\": [\n" + b.array().mid(1).toUtf8());
        expectStreamedAsWhole(after, "events after the events", Streams::Maybe);
        // Damage: the whole-text path says what is wrong.
        QByteArray broken = nested;
        broken.insert(broken.size() / 2, "\n@@@\n");
        expectStreamedAsWhole(broken, "broken in the middle", Streams::Never);
        QByteArray cut = nested.left(nested.size() * 2 / 3);
        cut.append("    \"name\": \"unfinis");
        expectStreamedAsWhole(cut, "cut off mid-string", Streams::Never);
        expectStreamedAsWhole(nested.left(nested.size() - 40), "array never closed",
                              Streams::Never);
        expectStreamedAsWhole("hello, world", "not JSON", Streams::Never);
        expectStreamedAsWhole(R"({"foo": 1})", "no traceEvents", Streams::Never);
        expectStreamedAsWhole("", "empty", Streams::Never);
    }

    // A gzip file that is not one sound member is read whole, which says what is wrong with it.
    void irregularGzipIsReadWhole() {
        const QByteArray text = oneStep(2000).object().toUtf8();
        const QByteArray member = gzipText(text);
        QByteArray corrupt = member;
        corrupt[corrupt.size() / 2] = char(corrupt[corrupt.size() / 2] ^ 0x55);
        QTemporaryDir dir;
        const std::vector<std::pair<QString, QByteArray>> files = {
            {"two members", member + member},
            {"bytes after the end", member + "garbage"},
            {"cut", member.left(member.size() / 2)},
            {"corrupt", corrupt},
            {"wrong checksum", member.left(member.size() - 8) + QByteArray(8, '\x01')},
        };
        for (const auto& [what, bytes] : files) {
            const QString path = dir.filePath(what + ".json.gz");
            writeFile(path, bytes);
            QVERIFY2(!readTraceStreamed(path.toStdString(), StreamOptions{2, 4096}),
                     qPrintable(what + " was read in pieces"));
            QString read;
            try {
                read = fingerprint(readTraceFile(path.toStdString()));
            } catch (const TraceError& e) {
                read = QString("error: ") + e.what();
            }
            QCOMPARE(read, wholeTextOutcome(path));
        }
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
