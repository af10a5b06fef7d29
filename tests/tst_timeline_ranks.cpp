// SPDX-License-Identifier: GPL-3.0-or-later
// Every rank of a real cell on one time axis: a world-size-3 `commprof run` with traces, read
// as the inspector reads a cell. The common axis keeps the ranks' real timing (checked against
// the rank files, which time each bucket on the same CLOCK_MONOTONIC); the same bucket is
// matched on every rank with the skew the rank files give; and when the traces are moved onto
// clocks an hour apart, as on other hosts, they are aligned on their first collective's end,
// found here independently with Qt's JSON parser, and the ruler says so.

#include "cli_runner.h"
#include "gzip_files.h"
#include "jobs/job_tracker.h"
#include "rank_files.h"
#include "timeline/rank_matching.h"
#include "timeline/stack_loader.h"
#include "timeline_view.h"
#include "trace_inspector.h"

#include <QJsonArray>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <map>

using namespace commprof;

namespace {

QJsonObject traceJson(const QString& path) {
    return QJsonDocument::fromJson(gunzip(path)).object();
}

// The end of the earliest gloo all-reduce span, as the file writes it.
double firstAllReduceEnd(const QJsonObject& trace) {
    double start = 1e300, end = 0;
    for (const QJsonValue& v : trace["traceEvents"].toArray()) {
        const QJsonObject o = v.toObject();
        if (o["name"].toString() == "gloo:all_reduce" && o["ts"].toDouble() < start) {
            start = o["ts"].toDouble();
            end = start + o["dur"].toDouble();
        }
    }
    return end;
}

// Start (µs) of the trace's hook span for each traced (iteration, bucket).
std::map<std::pair<int, int>, std::uint32_t> hookSpans(const timeline::RankTimeline& r) {
    std::map<std::pair<int, int>, std::uint32_t> out;
    std::map<int, int> seen;
    std::vector<std::uint32_t> order;
    for (std::uint32_t e = 0; e < r.trace.events.size(); ++e) {
        if (r.trace.name(r.trace.events[e]).rfind("c10d::allreduce_bucket#", 0) == 0) {
            order.push_back(e);
        }
    }
    std::sort(order.begin(), order.end(), [&](auto a, auto b) {
        return r.trace.events[a].startUs < r.trace.events[b].startUs;
    });
    for (const std::uint32_t e : order) {
        const std::string& name = r.trace.name(r.trace.events[e]);
        const int bucket = std::stoi(name.substr(name.find('#') + 1));
        out[{seen[bucket]++, bucket}] = e;
    }
    return out;
}

} // namespace

class TstTimelineRanks : public QObject {
    Q_OBJECT
    QTemporaryDir work_;
    QString cell_;

private slots:
    void initTestCase() {
        const QString run = work_.filePath("run");
        const CliResult r =
            runCli("commprof", {"run", COMMPROF_TEST_DATA "/timeline_ws3.yaml", "--out", run});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        cell_ = QDir(run).filePath("cells/mlp1m_gloo_cpu_ws3_r0");
        QCOMPARE(timeline::traceFilesOfCell(cell_).size(), 3);
    }

    void ranksOfOneHostShareTheirClock() {
        const auto stack = timeline::loadStack(timeline::traceFilesOfCell(cell_));
        QCOMPARE(int(stack.ranks.size()), 3);
        for (int r = 0; r < 3; ++r) {
            QCOMPARE(stack.ranks[std::size_t(r)]->rank, r);
        }
        QCOMPARE(stack.clocks.mode, timeline::ClockMode::Shared);
        QVERIFY(stack.clocks.note.isEmpty());
        QCOMPARE(stack.offsetsUs[1], stack.offsetsUs[0]);
        QCOMPARE(stack.offsetsUs[2], stack.offsetsUs[0]);

        // The rank files time every bucket from launch on the same clock: on the common axis,
        // the gap between two ranks' launches of a bucket is the gap the rank files record.
        std::vector<QJsonArray> buckets;
        for (int r = 0; r < 3; ++r) {
            buckets.push_back(
                readJsonFile(QString("%1/rank%2.json").arg(cell_).arg(r))["buckets"].toArray());
        }
        auto startNs = [&](int r, int iter, int index) -> qint64 {
            for (const QJsonValue& v : buckets[std::size_t(r)]) {
                const QJsonObject b = v.toObject();
                if (b["iter"].toInt() == iter && b["index"].toInt() == index) {
                    return b["start_ns"].toInteger();
                }
            }
            return -1;
        };
        const QJsonObject config = readJsonFile(cell_ + "/rank0.json")["config"].toObject();
        const int firstTraced = 3; // trace.first_step of timeline_ws3.yaml
        std::vector<std::map<std::pair<int, int>, std::uint32_t>> hooks;
        for (int r = 0; r < 3; ++r) {
            hooks.push_back(hookSpans(*stack.ranks[std::size_t(r)]));
        }
        QVERIFY(!hooks[0].empty());
        int compared = 0;
        for (const auto& [key, event0] : hooks[0]) {
            const int iter = firstTraced + key.first;
            const qint64 ns0 = startNs(0, iter, key.second);
            QVERIFY(ns0 > 0);
            const double shown0 = stack.toDisplay(0, stack.ranks[0]->trace.events[event0].startUs);
            for (int r = 1; r < 3; ++r) {
                const auto it = hooks[std::size_t(r)].find(key);
                QVERIFY(it != hooks[std::size_t(r)].end());
                const double shown = stack.toDisplay(
                    std::size_t(r), stack.ranks[std::size_t(r)]->trace.events[it->second].startUs);
                const double fromRankFiles = double(startNs(r, iter, key.second) - ns0) / 1e3;
                QVERIFY2(std::abs((shown - shown0) - fromRankFiles) < 2e-3,
                         qPrintable(QString("iter %1 bucket %2 rank %3: %4 vs %5")
                                        .arg(iter)
                                        .arg(key.second)
                                        .arg(r)
                                        .arg(shown - shown0)
                                        .arg(fromRankFiles)));
            }
            // The same bucket on every rank, matched from rank 0's span, with the skew of the
            // rank files' launch times.
            const auto m = timeline::matchAcrossRanks(stack, {0, event0});
            QCOMPARE(int(m.slices.size()), 3);
            qint64 lo = ns0, hi = ns0;
            int last = 0;
            for (int r = 1; r < 3; ++r) {
                const qint64 ns = startNs(r, iter, key.second);
                lo = std::min(lo, ns);
                if (ns > hi) {
                    hi = ns;
                    last = r;
                }
            }
            QVERIFY(std::abs(m.skewUs - double(hi - lo) / 1e3) < 2e-3);
            QCOMPARE(stack.ranks[std::size_t(m.lastRank)]->rank, last);
            ++compared;
        }
        QVERIFY(compared >= 4);
        QVERIFY(config["iterations"].toInt() > firstTraced);
    }

    void clocksThatDifferAreAlignedOnTheFirstCollectiveEnd() {
        // The same traces moved onto clocks an hour apart, as three hosts' CLOCK_MONOTONIC are.
        const std::map<int, double> planted{{0, 0.0}, {1, 3.6e9}, {2, -2.5e9}};
        QTemporaryDir other;
        QStringList files;
        std::map<int, double> ends;
        for (const auto& [rank, shift] : planted) {
            QJsonObject doc = traceJson(QString("%1/trace_rank%2.json.gz").arg(cell_).arg(rank));
            ends[rank] = firstAllReduceEnd(doc);
            QVERIFY(ends[rank] > 0);
            QJsonArray events = doc["traceEvents"].toArray();
            for (qsizetype i = 0; i < events.size(); ++i) {
                QJsonObject o = events[i].toObject();
                if (o.contains("ts")) {
                    o["ts"] = o["ts"].toDouble() + shift;
                }
                events[i] = o;
            }
            doc["traceEvents"] = events;
            const QString path = other.filePath(QString("trace_rank%1.json").arg(rank));
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QJsonDocument(doc).toJson(QJsonDocument::Compact));
            files << path;
        }
        const auto stack = timeline::loadStack(files);
        QCOMPARE(stack.clocks.mode, timeline::ClockMode::AlignedOnCollective);
        QVERIFY2(stack.clocks.note.contains("clocks differ") &&
                     stack.clocks.note.contains("all_reduce"),
                 qPrintable(stack.clocks.note));
        for (const auto& [rank, shift] : planted) {
            // Undo the planted shift, then line the first all-reduces' ends up with rank 0's.
            const double expected = -shift + (ends[0] - ends[rank]);
            QVERIFY2(std::abs(stack.clocks.shiftUs[std::size_t(rank)] - expected) < 1e-3,
                     qPrintable(QString("rank %1: %2 vs %3")
                                    .arg(rank)
                                    .arg(stack.clocks.shiftUs[std::size_t(rank)], 0, 'f', 3)
                                    .arg(expected, 0, 'f', 3)));
        }

        // The inspector opens the folder the same way, off the GUI thread, and the ruler
        // carries the note.
        widgets::TraceInspector inspector;
        inspector.resize(1400, 800);
        inspector.show();
        QSignalSpy loaded(&inspector, &widgets::TraceInspector::loaded);
        inspector.openFiles(files);
        QVERIFY(inspector.loads()->running());
        QVERIFY(loaded.wait(60000));
        QCOMPARE(int(inspector.stack()->ranks.size()), 3);
        QVERIFY(!inspector.stack()->clocks.note.isEmpty());
        const QImage withNote = inspector.timeline()->grab().toImage();
        // The note's box is drawn in the ruler's upper right corner in its own colour.
        bool noteDrawn = false;
        const int y = widgets::TimelineView::kRulerTop + 6; // the overview strip is above it
        for (int x = withNote.width() - 60; x < withNote.width() - 20 && !noteDrawn; ++x) {
            noteDrawn = withNote.pixelColor(x, y) == QColor(0xff, 0xf1, 0xdc);
        }
        QVERIFY(noteDrawn);
    }

    void aCellOpensWithAllItsRanks() {
        widgets::TraceInspector inspector;
        inspector.resize(1400, 800);
        inspector.show();
        QSignalSpy loaded(&inspector, &widgets::TraceInspector::loaded);
        inspector.openCell(cell_);
        QVERIFY(loaded.wait(60000));
        QCOMPARE(loaded.first()[0].toString(), QDir(cell_).filePath("trace_rank0.json.gz"));
        QCOMPARE(int(inspector.stack()->ranks.size()), 3);
        // One header per rank in the timeline, each collapsible.
        int headers = 0;
        for (const auto& row : inspector.timeline()->layout().rows()) {
            headers += row.kind == timeline::RowKind::Rank;
        }
        QCOMPARE(headers, 3);
        // Issue 40: the bar names the cell shown, and the keys go to the timeline without a
        // click first.
        QCOMPARE(inspector.shownName(),
                 QString("cell %1 (3 ranks)").arg(QFileInfo(cell_).fileName()));
        inspector.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&inspector));
        QTRY_VERIFY(inspector.timeline()->hasFocus());
        // A newer request wins: a cell asked for after another replaces it, whatever finishes
        // first.
        QSignalSpy failed(&inspector, &widgets::TraceInspector::loadFailed);
        inspector.openTrace(COMMPROF_SOURCE_DIR "/README.md");
        inspector.openCell(cell_);
        QVERIFY(loaded.wait(60000));
        QTest::qWait(300);
        QCOMPARE(failed.count(), 0);
        QCOMPARE(int(inspector.stack()->ranks.size()), 3);
        // A folder without traces is said, naming it.
        inspector.openCell(work_.path());
        QCOMPARE(failed.count(), 1);
        QVERIFY(failed.first()[1].toString().contains(work_.path()));
    }
};

QTEST_MAIN(TstTimelineRanks)
#include "tst_timeline_ranks.moc"
