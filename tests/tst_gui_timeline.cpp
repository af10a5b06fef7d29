// The trace timeline: its time-to-pixel mapping, lanes that add up to `commprof trace
// summarize`, level of detail at a million events, hit testing and selection, offscreen.

#include "cli_runner.h"
#include "image_checks.h"
#include "models/step_table_model.h"
#include "timeline/time_axis.h"
#include "timeline/timeline_data.h"
#include "timeline_view.h"
#include "trace/classification.h"
#include "trace/trace_reader.h"

#include <QAbstractItemModelTester>
#include <QJsonArray>
#include <QSignalSpy>
#include <QTest>

using namespace commprof;

namespace {

// A host-regime trace of n events on 4 threads, built in memory.
trace::Trace syntheticTrace(std::size_t n) {
    trace::Trace t;
    t.source = "synthetic";
    const auto mm = t.strings.intern("aten::mm");
    const auto gloo = t.strings.intern("gloo:all_reduce");
    const auto step = t.strings.intern("ProfilerStep#1");
    t.events.push_back({0.0, double(n) * 2.0, step, 0, 1, 0, false});
    for (std::size_t i = 0; i < n; ++i) {
        const double start = double(i) * 2.0;
        t.events.push_back(
            {start, start + 1.5, i % 7 == 0 ? gloo : mm, 0, 1, std::int64_t(i % 4), false});
    }
    trace::classify(t);
    return t;
}

} // namespace

class TstGuiTimeline : public QObject {
    Q_OBJECT
private slots:
    void timeToPixelMapping() {
        timeline::TimeAxis a(1000.0, 2000.0, 500);
        QCOMPARE(a.usPerPixel(), 2.0);
        QCOMPARE(a.toPixel(1000.0), 0.0);
        QCOMPARE(a.toPixel(2000.0), 500.0);
        QCOMPARE(a.toUs(250.0), 1500.0);
        QCOMPARE(a.toUs(a.toPixel(1234.5)), 1234.5);
        // Zoom keeps the time under the anchor where it was.
        const double before = a.toUs(100.0);
        a.zoom(4.0, 100.0);
        QCOMPARE(a.toUs(100.0), before);
        QCOMPARE(a.endUs() - a.startUs(), 250.0);
        a.pan(50.0);
        QCOMPARE(a.toUs(50.0), before);
        a.clamp(1000.0, 1100.0);
        QVERIFY(a.startUs() >= 1000.0 && a.endUs() <= 1100.0 + 1e-9);
        // Beyond 2^53 ns the mapping keeps sub-pixel precision.
        timeline::TimeAxis big(9.0e12, 9.0e12 + 100.0, 1000);
        QVERIFY(std::abs(big.toPixel(9.0e12 + 50.0) - 500.0) < 0.01);
    }

    void classLanesAddUpToTraceSummarize() {
        const QString path = COMMPROF_TEST_DATA "/traces/kineto_nccl_ddp_ws2_rank0.json.gz";
        const auto data = timeline::buildTimeline(trace::readTraceFile(path.toStdString()));
        const CliResult r = runCli("commprof", {"trace", "summarize", path, "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonArray steps = r.json()["steps"].toArray();
        QCOMPARE(int(data.steps.size()), steps.size());
        double compute = 0, comm = 0, bookkeeping = 0;
        for (const auto& s : data.steps) {
            compute += data.lanes[0].lengthWithin(s.window);
            comm += data.lanes[1].lengthWithin(s.window);
            bookkeeping += data.lanes[2].lengthWithin(s.window);
        }
        const QJsonObject totals = r.json()["totals"].toObject();
        QVERIFY(std::abs(compute - totals["compute_us"].toDouble()) < 1e-3);
        QVERIFY(std::abs(comm - totals["comm_us"].toDouble()) < 1e-3);
        QVERIFY(std::abs(bookkeeping - totals["bookkeeping_us"].toDouble()) < 1e-3);
        QVERIFY(data.lanes.size() > 3); // raw lanes per thread and stream follow the class lanes
        // The per-step table beside the timeline shows the same summary.
        models::StepTableModel stepTable;
        QAbstractItemModelTester tester(&stepTable,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        stepTable.setSummary(trace::summarize(data.trace));
        QCOMPARE(stepTable.rowCount(), int(data.steps.size()) + 1);
        QCOMPARE(
            stepTable
                .data(stepTable.index(stepTable.rowCount() - 1, models::StepTableModel::CommUs))
                .toString(),
            QString::number(totals["comm_us"].toDouble(), 'f', 1));
    }

    void levelOfDetailBoundsTheWorkAtAMillionEvents() {
        auto data = std::make_shared<timeline::TimelineData>(
            timeline::buildTimeline(syntheticTrace(1000000)));
        widgets::TimelineView view;
        view.resize(1200, 260);
        view.setData(data);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const int lanes = int(data->lanes.size());
        const int width = view.axis().widthPx();
        for (double zoom : {1.0, 10.0, 1000.0, 100000.0}) {
            view.setVisibleRange(data->startUs,
                                 data->startUs + (data->endUs - data->startUs) / zoom);
            const QImage frame = view.grab().toImage();
            // Never more rectangles than pixel columns, whatever the number of events.
            QVERIFY2(view.lastFrameRects() <= lanes * width,
                     qPrintable(QString::number(view.lastFrameRects())));
            QVERIFY(view.lastFrameRects() > 0);
            QVERIFY(distinctColours(frame) > 3);
        }
        // Zoomed in far enough, single events become separate rectangles.
        view.setVisibleRange(1000.0, 1100.0);
        view.grab();
        QVERIFY(view.lastFrameRects() >= 2 * 10);
    }

    void hoverAndClickFindTheEvent() {
        auto data =
            std::make_shared<timeline::TimelineData>(timeline::buildTimeline(syntheticTrace(1000)));
        widgets::TimelineView view;
        view.resize(900, 240);
        view.setData(data);
        view.setVisibleRange(0.0, 40.0); // 20 events wide
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        // Event i of thread (i % 4) spans [2i, 2i + 1.5]; lanes 0-2 are the class lanes.
        const int eventIndex = 1 + 9; // +1: the ProfilerStep event comes first
        const int lane = 3 + int(9 % 4);
        const QPoint at = view.pointOf(lane, 2.0 * 9 + 0.75);
        const auto hit = view.hitAt(at);
        QVERIFY(hit.has_value());
        QCOMPARE(hit->event, eventIndex);
        QVERIFY(view.describe(*hit).contains("aten::mm"));
        QVERIFY(view.describe(*hit).contains("1.500 µs"));
        QSignalSpy spy(&view, &widgets::TimelineView::eventSelected);
        QTest::mouseClick(&view, Qt::LeftButton, {}, at);
        QCOMPARE(spy.count(), 1);
        QCOMPARE(view.selectedEvent(), eventIndex);
        // The class lane's union span is reported as such.
        const auto unionHit = view.hitAt(view.pointOf(0, 2.0 * 8 + 0.5));
        QVERIFY(unionHit && unionHit->event == -1);
        // Wheel zoom keeps the time under the cursor.
        const double before = view.axis().toUs(at.x() - widgets::TimelineView::kGutter);
        view.zoomAt(2.0, at.x());
        QVERIFY(std::abs(view.axis().toUs(at.x() - widgets::TimelineView::kGutter) - before) <
                1e-9);
    }
};

QTEST_MAIN(TstGuiTimeline)
#include "tst_gui_timeline.moc"
