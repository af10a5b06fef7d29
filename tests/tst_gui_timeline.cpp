// SPDX-License-Identifier: GPL-3.0-or-later
// The trace inspector on real widgets, offscreen: keyboard and mouse navigation change the
// visible range as the header of timeline_view.h specifies, a click fills the details panel
// (checked against Qt's own reading of the trace), Shift+drag measures, the step table and the
// timeline select each other, search steps through its matches, groups collapse, and level of
// detail bounds the work at a million events.

#include "gzip_files.h"
#include "image_checks.h"
#include "job_waits.h"
#include "jobs/job_tracker.h"
#include "models/step_table_model.h"
#include "slice_details_panel.h"
#include "step_table_view.h"
#include "synthetic_trace.h"
#include "timeline/ruler.h"
#include "timeline/slice_search.h"
#include "timeline/timeline_stack.h"
#include "timeline_search_bar.h"
#include "timeline_view.h"
#include "trace/trace_reader.h"
#include "trace_builder.h"
#include "trace_inspector.h"

#include <QApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTest>
#include <QWheelEvent>

using namespace commprof;
using widgets::TimelineView;

namespace {

const QString kNccl = COMMPROF_TEST_DATA "/traces/kineto_nccl_ddp_ws2_rank0.json.gz";

std::shared_ptr<const timeline::TimelineStack> stackOf(trace::Trace t) {
    auto rank = std::make_shared<const timeline::RankTimeline>(
        timeline::buildRankTimeline(std::move(t), 0, "synthetic"));
    return std::make_shared<const timeline::TimelineStack>(timeline::stackRanks({rank}));
}

// Three steps on one thread, two ops each with a child: spans of known length.
std::shared_ptr<const timeline::TimelineStack> handStack() {
    TraceBuilder b;
    for (int s = 0; s < 3; ++s) {
        const double t0 = s * 1000.0;
        b.complete(QString("ProfilerStep#%1").arg(s), t0, 900, "user_annotation")
            .complete("aten::linear", t0 + 100, 300, "cpu_op")
            .complete("aten::addmm", t0 + 150, 200, "cpu_op")
            .complete("gloo:all_reduce", t0 + 500, 300, "cpu_op")
            .complete("aten::copy_", t0 + 550, 100, "cpu_op");
    }
    return stackOf(trace::parseTraceText(b.object().toStdString(), "hand"));
}

void sendWheel(QWidget* w, QPoint at, int dy, Qt::KeyboardModifiers mods, int dx = 0) {
    QWheelEvent e(at, w->mapToGlobal(at), QPoint(), QPoint(dx, dy), Qt::NoButton, mods,
                  Qt::NoScrollPhase, false);
    QApplication::sendEvent(w, &e);
}

double span(const TimelineView& v) {
    return v.axis().endUs() - v.axis().startUs();
}

} // namespace

class TstGuiTimeline : public QObject {
    Q_OBJECT
private slots:
    void keyboardNavigationChangesTheVisibleRange() {
        TimelineView view;
        view.resize(1200, 500);
        view.setStack(handStack());
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setFocus();
        // Fit shows everything with 1% either side: the trace is 2900 µs long.
        QCOMPARE(view.axis().startUs(), -29.0);
        QCOMPARE(view.axis().endUs(), 2900.0 * 1.01);

        // "?" lists the keys over the tracks and changes nothing else; "?" or Esc hides it.
        const QImage plain = view.grab().toImage();
        QTest::keyClick(&view, Qt::Key_Question);
        QVERIFY(view.keyHelpShown());
        QVERIFY(TimelineView::keyHelp().join('\n').contains("Backspace"));
        QVERIFY(view.grab().toImage() != plain);
        QCOMPARE(view.axis().startUs(), -29.0);
        QTest::keyClick(&view, Qt::Key_Escape);
        QVERIFY(!view.keyHelpShown());
        QCOMPARE(view.grab().toImage(), plain);

        view.setVisibleRange(1000, 2000);
        const int x = TimelineView::kGutter + view.tracksWidth() / 4;
        QTest::mouseMove(&view, QPoint(x, 200));
        const double underCursor = view.timeAtX(x);
        QTest::keyClick(&view, Qt::Key_W);
        QVERIFY(std::abs(span(view) - 1000 / TimelineView::kKeyZoomFactor) < 1e-9);
        QVERIFY(std::abs(view.timeAtX(x) - underCursor) < 1e-9);
        QTest::keyClick(&view, Qt::Key_S);
        QVERIFY(std::abs(span(view) - 1000) < 1e-9);
        QVERIFY(std::abs(view.timeAtX(x) - underCursor) < 1e-9);
        QTest::keyClick(&view, Qt::Key_Plus);
        QTest::keyClick(&view, Qt::Key_Minus);
        QVERIFY(std::abs(span(view) - 1000) < 1e-9);
        const double start = view.axis().startUs();
        QTest::keyClick(&view, Qt::Key_D);
        QVERIFY(std::abs(view.axis().startUs() - (start + 1000 * TimelineView::kKeyPanFraction)) <
                1e-9);
        QTest::keyClick(&view, Qt::Key_A);
        QTest::keyClick(&view, Qt::Key_A);
        QVERIFY(std::abs(view.axis().startUs() - (start - 1000 * TimelineView::kKeyPanFraction)) <
                1e-9);
        QVERIFY(std::abs(span(view) - 1000) < 1e-9);

        // Home fits; Backspace comes back to the view before it; F fits again.
        const auto beforeHome = std::make_pair(view.axis().startUs(), view.axis().endUs());
        QTest::keyClick(&view, Qt::Key_Home);
        QCOMPARE(view.axis().endUs(), 2900.0 * 1.01);
        QTest::keyClick(&view, Qt::Key_Backspace);
        QCOMPARE(view.axis().startUs(), beforeHome.first);
        QCOMPARE(view.axis().endUs(), beforeHome.second);
        QTest::keyClick(&view, Qt::Key_F);
        QCOMPARE(view.axis().startUs(), -29.0);

        // Ctrl+wheel zooms at the cursor; the plain wheel scrolls lanes, not time.
        view.setVisibleRange(1000, 2000);
        const double underWheel = view.timeAtX(x);
        sendWheel(&view, QPoint(x, 200), 120, Qt::ControlModifier);
        QVERIFY(std::abs(span(view) - 1000 / TimelineView::kWheelZoomBase) < 1e-9);
        QVERIFY(std::abs(view.timeAtX(x) - underWheel) < 1e-9);
        const auto afterZoom = std::make_pair(view.axis().startUs(), view.axis().endUs());
        view.resize(1200, 200); // fewer rows than lanes: there is something to scroll
        QTest::qWait(20);
        sendWheel(&view, QPoint(x, 150), -120, Qt::NoModifier);
        QVERIFY(view.scrollY() > 0);
        QCOMPARE(view.axis().startUs(), afterZoom.first);
        QCOMPARE(view.axis().endUs(), afterZoom.second);
        sendWheel(&view, QPoint(x, 150), -120, Qt::ShiftModifier);
        QVERIFY(view.axis().startUs() > afterZoom.first);
        view.resize(1200, 500);
        QTest::qWait(20);
        view.scrollToRow(0);

        // Double-click zooms to a slice (5% margins); Backspace returns.
        view.setVisibleRange(0, 2800);
        const auto before = std::make_pair(view.axis().startUs(), view.axis().endUs());
        timeline::SliceRef linear{0, 1}; // aten::linear of step 0: [100, 400]
        QCOMPARE(QString::fromStdString(view.stack()->ranks[0]->trace.name(
                     view.stack()->ranks[0]->trace.events[linear.event])),
                 QString("aten::linear"));
        const auto at = view.pointOfSlice(linear);
        QVERIFY(at);
        QTest::mouseDClick(&view, Qt::LeftButton, {}, *at);
        QVERIFY(std::abs(view.axis().startUs() - (100 - 15)) < 1e-9);
        QVERIFY(std::abs(view.axis().endUs() - (400 + 15)) < 1e-9);
        QCOMPARE(view.selected(), linear);
        QTest::keyClick(&view, Qt::Key_Backspace);
        QCOMPARE(view.axis().startUs(), before.first);
        QCOMPARE(view.axis().endUs(), before.second);
        // Esc clears the selection.
        QSignalSpy cleared(&view, &TimelineView::sliceSelected);
        QTest::keyClick(&view, Qt::Key_Escape);
        QVERIFY(!view.selected().valid());
        QCOMPARE(cleared.count(), 1);
    }

    void selectionFillsTheDetailsPanel() {
        widgets::TraceInspector inspector;
        inspector.resize(1600, 900);
        inspector.show();
        QVERIFY(QTest::qWaitForWindowExposed(&inspector));
        QSignalSpy loaded(&inspector, &widgets::TraceInspector::loaded);
        inspector.openTrace(kNccl);
        QVERIFY(waitIdle(inspector.loads()));
        QCOMPARE(loaded.count(), 1);
        QCOMPARE(loaded.first()[0].toString(), kNccl);
        const auto& rank = *inspector.stack()->ranks[0];
        const auto& t = rank.trace;

        // A kernel launch with a partner, and what Qt's parser says about it.
        std::uint32_t launch = 0;
        for (std::uint32_t e = 0; e < t.events.size(); ++e) {
            if (t.name(t.events[e]) == "cudaLaunchKernel" &&
                rank.flows.partners(t, e).size() == 1 && t.events[e].durationUs() >= 1 &&
                t.events[e].durationUs() < 10) {
                launch = e;
                break;
            }
        }
        QVERIFY(launch > 0);
        const std::uint32_t kernel = rank.flows.partners(t, launch)[0].event;
        QJsonObject json;
        for (const QJsonValue& v :
             QJsonDocument::fromJson(gunzip(kNccl)).object()["traceEvents"].toArray()) {
            const QJsonObject o = v.toObject();
            if (o["ph"].toString() == "X" && o["name"].toString() == "cudaLaunchKernel" &&
                std::abs(o["ts"].toDouble() - t.events[launch].startUs) < 1e-3) {
                json = o;
            }
        }
        QVERIFY(!json.isEmpty());

        auto* view = inspector.timeline();
        view->zoomToSlice({0, launch});
        const auto at = view->pointOfSlice({0, launch});
        QVERIFY(at);
        QTest::mouseClick(view, Qt::LeftButton, {}, *at);
        QCOMPARE(view->selected(), (timeline::SliceRef{0, launch}));
        QVERIFY(waitIdle(inspector.selectionJobs()));
        const QString text = inspector.details()->plainText();
        QVERIFY2(text.contains("cudaLaunchKernel"), qPrintable(text));
        QVERIFY(text.contains("cuda_runtime"));
        QVERIFY(text.contains(QString::number(json["dur"].toDouble(), 'f', 3) + " µs"));
        QVERIFY(text.contains("self time"));
        QVERIFY(text.contains("launched →"));
        QVERIFY(text.contains(QString::fromStdString(t.name(t.events[kernel])).left(30)));
        // The args as the file wrote them, read back lazily.
        const QJsonObject args = json["args"].toObject();
        for (const QString& key : args.keys()) {
            QVERIFY2(text.contains(key), qPrintable(key));
            QVERIFY(text.contains(QString::number(args[key].toInteger())));
        }
        // Following the flow: the kernel is selected and shows its launch; the keys go to the
        // timeline again at once (issue 29 item 15: W did nothing until the timeline was
        // clicked).
        inspector.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&inspector));
        inspector.details()->setFocus();
        QVERIFY(!view->hasFocus());
        emit inspector.details()->sliceRequested({0, kernel});
        QCOMPARE(view->selected(), (timeline::SliceRef{0, kernel}));
        QVERIFY(view->hasFocus());
        const double before = view->axis().endUs() - view->axis().startUs();
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_W);
        QVERIFY(view->axis().endUs() - view->axis().startUs() < before);
        QVERIFY(waitIdle(inspector.selectionJobs()));
        QVERIFY(inspector.details()->plainText().contains("← launched by"));
        QVERIFY(inspector.details()->plainText().contains("stream"));
        // Selection, arrow and partner are on screen: more ink than without them.
        const QImage with = view->grab().toImage();
        view->select({}, false);
        const QImage without = view->grab().toImage();
        QVERIFY(inkedPixels(with, 1) > inkedPixels(without, 1));
    }

    void shiftDragMeasuresARange() {
        widgets::TraceInspector inspector;
        inspector.resize(1400, 700);
        inspector.setStack(handStack());
        inspector.show();
        QVERIFY(QTest::qWaitForWindowExposed(&inspector));
        auto* view = inspector.timeline();
        view->setVisibleRange(0, 1000);
        const int y = TimelineView::kHeaderHeight + 120;
        const int x0 = int(std::lround(view->xOfTime(100)));
        const int x1 = int(std::lround(view->xOfTime(600)));
        QSignalSpy ranged(view, &TimelineView::rangeSelected);
        QTest::mousePress(view, Qt::LeftButton, Qt::ShiftModifier, QPoint(x0, y));
        QTest::mouseMove(view, QPoint((x0 + x1) / 2, y));
        QTest::mouseMove(view, QPoint(x1, y));
        QTest::mouseRelease(view, Qt::LeftButton, Qt::ShiftModifier, QPoint(x1, y));
        QCOMPARE(ranged.count(), 1);
        const double a = ranged.first()[0].toDouble();
        const double b = ranged.first()[1].toDouble();
        QVERIFY(std::abs(a - 100) <= view->axis().usPerPixel());
        QVERIFY(std::abs(b - 600) <= view->axis().usPerPixel());
        // The visible range did not move: Shift+drag measures, it does not pan.
        QCOMPARE(view->axis().startUs(), 0.0);
        // The panel's figures, by hand over exactly [100, 600] (the drag above lands within a
        // pixel of it): compute is linear [100,400] and the copy_ inside the all-reduce
        // [550,600], 350 us; communication the all-reduce's [500,600], 100 us; of it 50 us
        // overlapped by that copy_, 50 us exposed.
        emit view->rangeSelected(100, 600);
        const QString text = inspector.details()->plainText();
        const auto shows = [&](const char* label, double us) {
            return QRegularExpression(
                       QString("%1\\s+%2")
                           .arg(label, QRegularExpression::escape(timeline::formatDuration(us))))
                .match(text)
                .hasMatch();
        };
        QVERIFY2(shows("compute", 350), qPrintable(text));
        QVERIFY2(shows("communication", 100), qPrintable(text));
        QVERIFY2(shows("overlap", 50), qPrintable(text));
        QVERIFY2(shows("exposed comm\\.", 50), qPrintable(text));
    }

    void stepTableAndTimelineSelectEachOther() {
        widgets::TraceInspector inspector;
        inspector.resize(1400, 800);
        inspector.setStack(handStack());
        inspector.show();
        QVERIFY(QTest::qWaitForWindowExposed(&inspector));
        auto* view = inspector.timeline();
        QCOMPARE(inspector.steps()->rowCount(), 3 + 1);
        inspector.stepTable()->selectRow(1);
        // Step 1 is [1000, 1900]: shown with 2% margins, and the ruler counts from its start.
        QVERIFY(std::abs(view->axis().startUs() - (1000 - 18)) < 1e-9);
        QVERIFY(std::abs(view->axis().endUs() - (1900 + 18)) < 1e-9);
        QCOMPARE(view->origin(), 1000.0);
        QVERIFY(view->originText().contains("step 1"));
        // Clicking step 2's band in the strip selects its row.
        view->setVisibleRange(0, 2800);
        const QPoint band(int(std::lround(view->xOfTime(2450))), TimelineView::kRulerHeight + 8);
        QTest::mouseClick(view, Qt::LeftButton, {}, band);
        QCOMPARE(inspector.stepTable()->selectedStep(), 2);
        QCOMPARE(view->origin(), 2000.0);
        QVERIFY(std::abs(view->axis().startUs() - (2000 - 18)) < 1e-9);
        // The totals row goes back to everything, counted from the trace start.
        inspector.stepTable()->selectRow(3);
        QCOMPARE(view->origin(), 0.0);
        QCOMPARE(view->axis().endUs(), 2900.0 * 1.01);
    }

    void searchStepsThroughMatches() {
        widgets::TraceInspector inspector;
        inspector.resize(1400, 800);
        inspector.show();
        inspector.openTrace(kNccl);
        QVERIFY(waitIdle(inspector.loads()));
        int expected = 0;
        for (const QJsonValue& v :
             QJsonDocument::fromJson(gunzip(kNccl)).object()["traceEvents"].toArray()) {
            const QJsonObject o = v.toObject();
            expected += o["ph"].toString() == "X" &&
                        o["name"].toString().contains("allreduce", Qt::CaseInsensitive);
        }
        QVERIFY(expected > 1);
        inspector.searchBar()->edit()->setText("AllReduce");
        QTest::keyClick(inspector.searchBar()->edit(), Qt::Key_Return);
        QVERIFY(waitIdle(inspector.searchJobs()));
        QCOMPARE(int(inspector.matches()->count()), expected);
        // Enter went to the first match after the view's start: the first of all.
        QTRY_COMPARE(inspector.searchBar()->resultText(), QString("1 of %1").arg(expected));
        const auto first = inspector.matches()->slices[0];
        QCOMPARE(inspector.timeline()->selected(), first);
        inspector.nextMatch(true);
        QCOMPARE(inspector.searchBar()->resultText(), QString("2 of %1").arg(expected));
        QCOMPARE(inspector.timeline()->selected(), inspector.matches()->slices[1]);
        inspector.nextMatch(false);
        inspector.nextMatch(false); // wraps to the last
        QCOMPARE(inspector.searchBar()->resultText(), QString("%1 of %1").arg(expected));
        // The match is on screen, within the visible time.
        const auto at = inspector.timeline()->pointOfSlice(inspector.timeline()->selected());
        QVERIFY(at.has_value());
        // A bad regular expression is said, not searched.
        inspector.search("(", true);
        QVERIFY(waitIdle(inspector.searchJobs()));
        QCOMPARE(inspector.searchBar()->resultText(), QString("error"));
    }

    void groupsCollapse() {
        TimelineView view;
        view.resize(1200, 600);
        view.setStack(stackOf(trace::readTraceFile(kNccl.toStdString())));
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const std::size_t open = view.layout().rows().size();
        // The first process header: a click in the gutter collapses it, a second opens it.
        std::size_t header = 0;
        while (view.layout().rows()[header].kind != timeline::RowKind::Process) {
            ++header;
        }
        const auto& row = view.layout().rows()[header];
        const QPoint at(20, TimelineView::kHeaderHeight + row.top + row.height / 2);
        const int lanes = int(view.stack()->ranks[0]->groups[std::size_t(row.group)].lanes.size());
        QVERIFY(lanes > 0);
        QTest::mouseClick(&view, Qt::LeftButton, {}, at);
        QVERIFY(view.collapsed().groupCollapsed(0, row.group));
        QVERIFY(view.layout().rows().size() < open);
        QTest::mouseClick(&view, Qt::LeftButton, {}, at);
        QCOMPARE(view.layout().rows().size(), open);
        // The rank header collapses everything of the rank but itself.
        QTest::mouseClick(&view, Qt::LeftButton, {}, QPoint(20, TimelineView::kHeaderHeight + 5));
        QCOMPARE(view.layout().rows().size(), std::size_t(1));
    }

    void levelOfDetailBoundsTheWorkAtAMillionEvents() {
        auto stack = stackOf(synthetic::nestedTrace(1000000));
        TimelineView view;
        view.resize(1200, 600);
        view.setStack(stack);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const int rowsShown = (600 - TimelineView::kHeaderHeight) / 14 + 1;
        for (double zoom : {1.0, 10.0, 100.0, 1e3, 1e4, 1e5}) {
            const double mid = stack->endUs / 2;
            view.setVisibleRange(mid - stack->endUs / zoom / 2, mid + stack->endUs / zoom / 2);
            const QImage frame = view.grab().toImage();
            // Never more pieces than pixel columns per shown row, whatever the event count.
            QVERIFY2(view.lastFrameRects() <= rowsShown * view.tracksWidth(),
                     qPrintable(QString::number(view.lastFrameRects())));
            QVERIFY(view.lastFrameRects() > 0);
            QVERIFY(distinctColours(frame) > 8);
        }
        // Zoomed in to single ops, slices carry their names.
        view.setVisibleRange(0, 1000);
        view.grab();
        QVERIFY(view.lastFrameLabels() >= 10);
    }
};

QTEST_MAIN(TstGuiTimeline)
#include "tst_gui_timeline.moc"
