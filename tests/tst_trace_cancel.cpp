// SPDX-License-Identifier: GPL-3.0-or-later
// A trace read that is no longer wanted stops working, not just stops being shown: with a
// cancel predicate that turns true after the first piece, the 54 MB fixture's read ends with
// ReadCancelled having parsed a piece or two of its 200-odd, on either reading path; a stack
// of ranks stops every file it is reading and starts no other; and the trace inspector's load,
// superseded by a newer one while it reads sixteen ranks, reads no further file than the ones
// it was in, and shows neither a result nor an error for it.

#include "job_waits.h"
#include "shared_fixtures.h"
#include "timeline/stack_loader.h"
#include "trace/read_cancel.h"
#include "trace/trace_job.h"
#include "trace/trace_reader.h"
#include "trace/trace_stream.h"
#include "trace_inspector.h"

#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTest>
#include <QThread>
#include <QThreadPool>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <optional>
#include <thread>

using namespace commprof;
using namespace commprof::trace;

namespace {

const QString kLarge = kLargeSharedTrace;
const QString kSmall = COMMPROF_TEST_DATA "/traces/kineto_cpu_only_gloo_rank34.json.gz";

// A predicate that says "stop" from its second question on: the reader asks once before it
// reads anything, then after each piece (or before each chunk), so the first piece is read and
// the rest are not.
struct StopAfterFirst {
    std::shared_ptr<std::atomic<int>> asked = std::make_shared<std::atomic<int>>(0);
    bool operator()() const { return ++*asked > 1; }
};

// Bytes this process has read so far through read(2) and its kind, all its threads together
// (rchar in /proc/self/io), less what asking took; nullopt where the system does not say.
std::optional<quint64> bytesRead() {
    static quint64 asking = 0;
    QFile io("/proc/self/io");
    if (!io.open(QIODevice::ReadOnly)) {
        return std::nullopt;
    }
    const QByteArray text = io.readAll();
    asking += quint64(text.size());
    for (const QByteArray& line : text.split('\n')) {
        if (line.startsWith("rchar:")) {
            return line.mid(6).trimmed().toULongLong() - asking;
        }
    }
    return std::nullopt;
}

} // namespace

class TstTraceCancel : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        REQUIRE_FIXTURE(kLarge);
        // The whole text's size, to say how little of it a cancelled read got through.
        textBytes_ = readTraceFile(kLarge.toStdString()).textBytes;
        QVERIFY(textBytes_ > 50u << 20);
    }

    void streamedReadStopsAfterTheFirstPiece_data() {
        QTest::addColumn<int>("threads");
        QTest::newRow("one thread") << 1;
        QTest::newRow("two threads") << 2;
        QTest::newRow("four threads") << 4;
    }

    void streamedReadStopsAfterTheFirstPiece() {
        QFETCH(int, threads);
        StreamOptions options;
        options.threads = threads;
        const std::size_t pieces = textBytes_ / options.pieceBytes;
        QVERIFY(pieces > 200);
        const StopAfterFirst stop;
        try {
            readTraceStreamed(kLarge.toStdString(), options, stop);
            QFAIL("the read ran to its end: the predicate was not asked between pieces");
        } catch (const ReadCancelled& e) {
            // Asked once each piece is queued: "go on" after the first, "stop" after the
            // second. What is still queued then is skipped, so at most those two were parsed
            // (none, when the other threads had not taken them yet).
            QVERIFY2(e.piecesParsed() <= 2, qPrintable(QString::number(e.piecesParsed())));
            QVERIFY2(e.textBytes() <= 2 * options.pieceBytes,
                     qPrintable(QString("%1 of %2 bytes").arg(e.textBytes()).arg(textBytes_)));
        }
        QCOMPARE(stop.asked->load(), 2);
    }

    void wholeTextParseStopsBeforeTheNextChunk_data() {
        QTest::addColumn<int>("threads");
        QTest::newRow("one thread") << 1;
        QTest::newRow("two threads") << 2;
    }

    // The path for unusual files: the text inflated whole, then parsed in checked chunks.
    void wholeTextParseStopsBeforeTheNextChunk() {
        QFETCH(int, threads);
        PaddedBuffer buf = readTraceText(kLarge.toStdString(), ReadOptions());
        const ParseOptions options{threads, std::size_t(1) << 20};
        const std::size_t chunks = buf.size / options.chunkBytes;
        QVERIFY(chunks > 40);
        const StopAfterFirst stop;
        try {
            parseTraceBuffer(buf, kLarge.toStdString(), options, stop);
            QFAIL("the parse ran to its end: the predicate was not asked between chunks");
        } catch (const ReadCancelled& e) {
            // Each thread asks before its first chunk; only the first answer is "go on".
            QVERIFY2(e.piecesParsed() == 1, qPrintable(QString::number(e.piecesParsed())));
        }
    }

    void readTraceFileStopsWithItsOwnOutcome() {
        ReadOptions options;
        options.cancelled = StopAfterFirst();
        try {
            readTraceFile(kLarge.toStdString(), options);
            QFAIL("the read ran to its end");
        } catch (const TraceError& e) {
            QFAIL(qPrintable(QString("a cancelled read is not an error: ") + e.what()));
        } catch (const ReadCancelled& e) {
            QVERIFY(e.textBytes() < textBytes_ / 50);
        }
    }

    void aPredicateThatNeverSaysStopChangesNothing() {
        ReadOptions options;
        std::atomic<int> asked{0};
        options.cancelled = [&asked] {
            ++asked;
            return false;
        };
        const Trace with = readTraceFile(kLarge.toStdString(), options);
        const Trace without = readTraceFile(kLarge.toStdString(), ReadOptions());
        QVERIFY(asked > 200); // asked at every piece
        QCOMPARE(with.events.size(), without.events.size());
        QCOMPARE(with.textBytes, without.textBytes);
        QCOMPARE(with.collectives.size(), without.collectives.size());
        QCOMPARE(with.flows.size(), without.flows.size());
        QCOMPARE(with.warnings, without.warnings);
        for (std::size_t i = 0; i < with.events.size(); ++i) {
            const TraceEvent &a = with.events[i], &b = without.events[i];
            if (a.startUs != b.startUs || a.endUs != b.endUs || with.name(a) != without.name(b) ||
                a.cls != b.cls) {
                QFAIL(qPrintable(QString("event %1 differs").arg(i)));
            }
        }
    }

    void aStackOfRanksStopsEveryFileAndStartsNoOther() {
        const std::vector<std::string> files(6, kLarge.toStdString());
        ReadOptions options;
        options.cancelled = StopAfterFirst();
        const std::vector<LoadedTrace> read = readTraces(files, options, 2);
        QCOMPARE(read.size(), files.size());
        for (const LoadedTrace& r : read) {
            QVERIFY(r.cancelled);
            QVERIFY(!r.trace);
            QVERIFY2(r.error.empty(), r.error.c_str());
        }
        // The stack loader says so with its own outcome, never a TraceError naming the files.
        try {
            timeline::loadStack(QStringList(4, kLarge), StopAfterFirst(), 2);
            QFAIL("the stack was built");
        } catch (const TraceError& e) {
            QFAIL(qPrintable(QString("a cancelled load is not an error: ") + e.what()));
        } catch (const ReadCancelled&) {
        }
    }

    // The workbench's trace load (TraceInspector::openFiles through its job tracker) hands the
    // job's generation check to the parser: superseded while it reads sixteen ranks, the files
    // it was in stop within the input block they had, and the others are never opened.
    void aSupersededLoadInTheInspectorStopsReading() {
        if (!bytesRead()) {
            QSKIP("this system does not count a process's reads (/proc/self/io)");
        }
        const auto fileBytes = quint64(QFileInfo(kLarge).size());
        // Files read at once (one per core): each may finish the input block it is in.
        const auto inFlight = quint64(std::clamp(QThread::idealThreadCount(), 1, 16));
        widgets::TraceInspector inspector; // its own tracker, on the global thread pool
        QSignalSpy loaded(&inspector, &widgets::TraceInspector::loaded);
        QSignalSpy failed(&inspector, &widgets::TraceInspector::loadFailed);
        const quint64 start = *bytesRead();
        inspector.openFiles(QStringList(16, kLarge));
        // Superseded once it reads, not before it starts: a job superseded before it begins is
        // skipped whole, predicate or not. No event loop meanwhile: nothing else reads files.
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        while (*bytesRead() - start < (256u << 10) && std::chrono::steady_clock::now() < deadline) {
            std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
        const quint64 reading = *bytesRead();
        QVERIFY(reading - start >= (256u << 10));
        QVERIFY2(reading - start < 4 * fileBytes, "most of the load is still to be read");
        inspector.openTrace(kSmall);
        QVERIFY(QThreadPool::globalInstance()->waitForDone(120000)); // both loads have ended
        const quint64 after = *bytesRead();
        qInfo("read %llu bytes before being superseded, %llu after", reading - start,
              after - reading);
        // Ignoring the predicate, the files being read would be read to their ends, or all
        // sixteen (48 MB).
        QVERIFY2(after - reading < inFlight * fileBytes / 2,
                 qPrintable(QString("read %1 bytes after being superseded; a file is %2, %3 read "
                                    "at once")
                                .arg(after - reading)
                                .arg(fileBytes)
                                .arg(inFlight)));
        QVERIFY(waitIdle(inspector.loads()));
        QTest::qWait(100);
        QCOMPARE(failed.count(), 0);
        QCOMPARE(loaded.count(), 1);
        QCOMPARE(loaded.first()[0].toString(), kSmall);
        QCOMPARE(int(inspector.stack()->ranks.size()), 1);
    }

private:
    std::uint64_t textBytes_ = 0;
};

QTEST_MAIN(TstTraceCancel)
#include "tst_trace_cancel.moc"
