// SPDX-License-Identifier: GPL-3.0-or-later
// The trace inspector on real widgets, offscreen: keyboard and mouse navigation change the
// visible range as the header of timeline_view.h specifies, a click fills the details panel
// (checked against Qt's own reading of the trace), Shift+drag measures, the step table and the
// timeline select each other, search steps through its matches, groups collapse, level of
// detail bounds the work at a million events, the overview strip moves the view, the range is
// summed by name in a sortable table, tracks pin to the top, and the ruler's labels, the
// origin after F, the selection at coarse zoom and the rank chooser read right (issue 29).

#include "gzip_files.h"
#include "image_checks.h"
#include "job_waits.h"
#include "jobs/job_tracker.h"
#include "models/step_table_model.h"
#include "range_aggregate_view.h"
#include "slice_details_panel.h"
#include "step_table_view.h"
#include "synthetic_trace.h"
#include "timeline/ruler.h"
#include "timeline/slice_search.h"
#include "timeline/timeline_stack.h"
#include "timeline_painter.h"
#include "timeline_search_bar.h"
#include "timeline_view.h"
#include "trace/trace_reader.h"
#include "trace_builder.h"
#include "trace_inspector.h"

#include <QApplication>
#include <QComboBox>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QMenu>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTableView>
#include <QTest>
#include <QTextBrowser>
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
trace::Trace handTrace() {
    TraceBuilder b;
    for (int s = 0; s < 3; ++s) {
        const double t0 = s * 1000.0;
        b.complete(QString("ProfilerStep#%1").arg(s), t0, 900, "user_annotation")
            .complete("aten::linear", t0 + 100, 300, "cpu_op")
            .complete("aten::addmm", t0 + 150, 200, "cpu_op")
            .complete("gloo:all_reduce", t0 + 500, 300, "cpu_op")
            .complete("aten::copy_", t0 + 550, 100, "cpu_op");
    }
    return trace::parseTraceText(b.object().toStdString(), "hand");
}

std::shared_ptr<const timeline::TimelineStack> handStack() {
    return stackOf(handTrace());
}

// The inspector showing handStack() on screen at `size`.
bool showHandStack(widgets::TraceInspector& inspector, QSize size) {
    inspector.resize(size);
    inspector.setStack(handStack());
    inspector.show();
    return QTest::qWaitForWindowExposed(&inspector);
}

// The hand trace on two ranks of one clock.
std::shared_ptr<const timeline::TimelineStack> twoRankStack() {
    std::vector<std::shared_ptr<const timeline::RankTimeline>> ranks;
    for (int r = 0; r < 2; ++r) {
        ranks.push_back(std::make_shared<const timeline::RankTimeline>(
            timeline::buildRankTimeline(handTrace(), r, QString("trace_rank%1.json").arg(r))));
    }
    return std::make_shared<const timeline::TimelineStack>(timeline::stackRanks(ranks));
}

// Pixels of `image` inside `area` within `tolerance` of `colour` on every channel.
int pixelsNear(const QImage& image, QRect area, QColor colour, int tolerance = 40) {
    int n = 0;
    area = area.intersected(image.rect());
    for (int y = area.top(); y <= area.bottom(); ++y) {
        for (int x = area.left(); x <= area.right(); ++x) {
            const QColor c = image.pixelColor(x, y);
            n += std::abs(c.red() - colour.red()) <= tolerance &&
                 std::abs(c.green() - colour.green()) <= tolerance &&
                 std::abs(c.blue() - colour.blue()) <= tolerance;
        }
    }
    return n;
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
        const QString text =
            inspector.details()->findChild<QTextBrowser*>("sliceDetails")->toPlainText();
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
        QVERIFY(inspector.details()
                    ->findChild<QTextBrowser*>("sliceDetails")
                    ->toPlainText()
                    .contains("← launched by"));
        QVERIFY(inspector.details()
                    ->findChild<QTextBrowser*>("sliceDetails")
                    ->toPlainText()
                    .contains("stream"));
        // Selection, arrow and partner are on screen: more ink than without them.
        const QImage with = view->grab().toImage();
        view->select({}, false);
        const QImage without = view->grab().toImage();
        QVERIFY(inkedPixels(with, 1) > inkedPixels(without, 1));
    }

    void shiftDragMeasuresARange() {
        widgets::TraceInspector inspector;
        QVERIFY(showHandStack(inspector, {1400, 700}));
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
        const QString text =
            inspector.details()->findChild<QTextBrowser*>("sliceDetails")->toPlainText();
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
        QVERIFY(showHandStack(inspector, {1400, 800}));
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
        const QPoint band(int(std::lround(view->xOfTime(2450))), TimelineView::kStripTop + 8);
        QTest::mouseClick(view, Qt::LeftButton, {}, band);
        QCOMPARE(inspector.stepTable()->selectedStep(), 2);
        QCOMPARE(view->origin(), 2000.0);
        QVERIFY(std::abs(view->axis().startUs() - (2000 - 18)) < 1e-9);
        // The totals row goes back to everything, counted from the trace start.
        inspector.stepTable()->selectRow(3);
        QCOMPARE(view->origin(), 0.0);
        QCOMPARE(view->axis().endUs(), 2900.0 * 1.01);
        // F fits the whole trace: counted from step 1 it would read -1000 µs at its start
        // (issue 29), so the ruler counts from the trace start again and the step row clears.
        inspector.stepTable()->selectRow(1);
        QCOMPARE(view->origin(), 1000.0);
        view->setFocus();
        QTest::keyClick(view, Qt::Key_F);
        QCOMPARE(view->axis().endUs(), 2900.0 * 1.01);
        QCOMPARE(view->origin(), 0.0);
        QCOMPARE(view->originText(), QString("from the trace start"));
        QCOMPARE(inspector.stepTable()->selectedStep(), -1);
        const auto ruler = timeline::makeRuler(view->axis(), view->origin(), 80);
        for (const auto& t : ruler.ticks) {
            if (t.major && t.us >= 0) {
                QVERIFY2(!t.label.startsWith('-'), qPrintable(t.label));
            }
        }
    }

    void overviewStripMovesTheView() {
        TimelineView view;
        view.resize(1200, 500);
        view.setStack(handStack());
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        // Binned once per load over the whole trace: step 0's op [100,400] is busy compute.
        const auto& o = view.overview();
        QCOMPARE(int(o.bins), int(TimelineView::kOverviewBins));
        QCOMPARE(o.endUs(), 2900.0);
        QCOMPARE(o.ranks[0].busy[0][std::size_t(250 / o.binUs)], 1.0f);
        QCOMPARE(o.ranks[0].busy[0][std::size_t(950 / o.binUs)], 0.0f); // between steps

        view.setVisibleRange(1000, 1500);
        const QImage frame = view.grab().toImage();
        const QRect strip(TimelineView::kGutter, 0, view.tracksWidth(),
                          TimelineView::kOverviewHeight);
        // Activity in the class colour where the ops run; the window framed in the range blue.
        const QColor compute = widgets::toQColor(timeline::classColour(trace::EventClass::Compute));
        const int opX = int(std::lround(view.overviewXOfTime(250)));
        QVERIFY(pixelsNear(frame, QRect(opX - 2, 2, 5, TimelineView::kOverviewHeight - 4), compute,
                           60) > 0);
        const int winX = int(std::lround(view.overviewXOfTime(1000)));
        const int winX1 = int(std::lround(view.overviewXOfTime(1500)));
        const QColor edge(40, 120, 255);
        QVERIFY(pixelsNear(frame, QRect(winX - 1, 4, 4, 20), edge, 70) > 0);
        QVERIFY(pixelsNear(frame, QRect(winX1 - 3, 4, 4, 20), edge, 70) > 0);
        QCOMPARE(pixelsNear(frame, QRect(opX - 2, 4, 4, 20), edge, 70), 0);
        // Outside the window the strip is dimmed: [1400,1500] of step 1 and [400,500] of step 0
        // are idle in every class, and only the first is in the window.
        const int idleIn = int(std::lround(view.overviewXOfTime(1450)));
        const int idleOut = int(std::lround(view.overviewXOfTime(450)));
        QCOMPARE(qGray(frame.pixel(idleIn, 6)), 255);
        QVERIFY(qGray(frame.pixel(idleOut, 6)) < 235);
        QVERIFY(distinctColours(frame.copy(strip), 2) > 3);

        // A click outside the window centres it there, keeping the zoom.
        const double perPx = 2900.0 / view.tracksWidth();
        const int at2500 = int(std::lround(view.overviewXOfTime(2500)));
        QTest::mouseClick(&view, Qt::LeftButton, {}, QPoint(at2500, 18));
        QVERIFY(std::abs(span(view) - 500) < 1e-9);
        QVERIFY2(std::abs((view.axis().startUs() + view.axis().endUs()) / 2 - 2500) <= perPx,
                 qPrintable(QString::number(view.axis().startUs())));
        // A drag from inside moves it by the drag, not to the cursor.
        const double start = view.axis().startUs();
        const int from = int(std::lround(view.overviewXOfTime(start + 100)));
        QTest::mousePress(&view, Qt::LeftButton, {}, QPoint(from, 18));
        QCOMPARE(view.axis().startUs(), start);
        QTest::mouseMove(&view, QPoint(from - 40, 18));
        QTest::mouseMove(&view, QPoint(from - 80, 18));
        QTest::mouseRelease(&view, Qt::LeftButton, {}, QPoint(from - 80, 18));
        QVERIFY2(std::abs(view.axis().startUs() - (start - 80 * perPx)) <= perPx,
                 qPrintable(QString::number(view.axis().startUs())));
        QVERIFY(std::abs(span(view) - 500) < 1e-9);
        // Backspace goes back to where the overview was first clicked from.
        QTest::keyClick(&view, Qt::Key_Backspace);
        QVERIFY(std::abs(view.axis().startUs() - start) < 1e-9);
        QTest::keyClick(&view, Qt::Key_Backspace);
        QCOMPARE(view.axis().startUs(), 1000.0);
    }

    void rangeIsSummedByName() {
        widgets::TraceInspector inspector;
        QVERIFY(showHandStack(inspector, {1400, 800}));
        auto* view = inspector.timeline();
        auto* agg = inspector.rangeAggregate();
        QCOMPARE(inspector.lowerTabs()->currentWidget(), inspector.stepTable());
        emit view->rangeSelected(100, 600);
        QVERIFY(waitIdle(inspector.rangeJobs()));
        QCOMPARE(inspector.lowerTabs()->currentWidget(), agg);
        QVERIFY(agg->isVisible());
        QVERIFY2(agg->headerText().contains("clipped"), qPrintable(agg->headerText()));
        // By hand over [100,600] (step 0): the step 500 (self 100), linear 300 (self 100),
        // addmm 200, the all-reduce 100 (self 50), copy_ 50.
        auto* m = agg->model();
        QCOMPARE(m->rowCount(), 5);
        auto rowOf = [&](const QString& name) {
            for (int r = 0; r < m->rowCount(); ++r) {
                if (m->item(r, 0)->text() == name) {
                    return r;
                }
            }
            return -1;
        };
        using C = widgets::RangeAggregateView;
        const int linear = rowOf("aten::linear");
        QVERIFY(linear >= 0);
        QCOMPARE(m->item(linear, C::Count)->text(), QString("1"));
        QCOMPARE(m->item(linear, C::Total)->text(), timeline::formatDuration(300));
        QCOMPARE(m->item(linear, C::Self)->text(), timeline::formatDuration(100));
        QCOMPARE(m->item(linear, C::Class)->text(), QString("compute"));
        const int reduce = rowOf("gloo:all_reduce");
        QCOMPARE(m->item(reduce, C::Total)->text(), timeline::formatDuration(100));
        QCOMPARE(m->item(reduce, C::Self)->text(), timeline::formatDuration(50));
        QCOMPARE(m->item(rowOf("ProfilerStep#0"), C::Self)->text(), timeline::formatDuration(100));
        // Sorted as numbers: ascending total starts at copy_'s 50 µs (as text "100.0 µs" of
        // the all-reduce would sort first), descending at the step's 500 µs.
        agg->table()->sortByColumn(C::Total, Qt::AscendingOrder);
        QCOMPARE(m->item(0, 0)->text(), QString("aten::copy_"));
        QCOMPARE(m->item(4, 0)->text(), QString("ProfilerStep#0"));
        agg->table()->sortByColumn(C::Self, Qt::DescendingOrder);
        QCOMPARE(m->item(0, 0)->text(), QString("aten::addmm"));
        // A real Shift+drag lands here too, and Esc clears it and shows the steps again.
        const int y = TimelineView::kHeaderHeight + 120;
        QTest::mousePress(view, Qt::LeftButton, Qt::ShiftModifier,
                          QPoint(int(std::lround(view->xOfTime(1000))), y));
        QTest::mouseMove(view, QPoint(int(std::lround(view->xOfTime(2950))), y));
        QTest::mouseRelease(view, Qt::LeftButton, Qt::ShiftModifier,
                            QPoint(int(std::lround(view->xOfTime(2950))), y));
        QVERIFY(waitIdle(inspector.rangeJobs()));
        QCOMPARE(m->rowCount(), 4 + 2); // the ops, and the steps 1 and 2 by their names
        QCOMPARE(m->item(rowOf("aten::linear"), C::Count)->text(), QString("2"));
        view->setFocus();
        QTest::keyClick(view, Qt::Key_Escape);
        QCOMPARE(m->rowCount(), 0);
        QCOMPARE(inspector.lowerTabs()->currentWidget(), inspector.stepTable());
    }

    void tracksPinToTheTop() {
        TimelineView view;
        view.resize(1200, 320);
        view.setStack(stackOf(trace::readTraceFile(kNccl.toStdString())));
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        // The last lane of the layout: far below the visible rows.
        const auto& rows = view.layout().rows();
        std::size_t last = rows.size() - 1;
        while (rows[last].kind != timeline::RowKind::Slices || rows[last].depth != 0) {
            --last;
        }
        const timeline::LaneKey lane{rows[last].rank, rows[last].group, rows[last].lane};
        QVERIFY(rows[last].top > 320);
        view.scrollToRow(last);
        const auto at = view.pointOfRow(last, view.axis().startUs());
        QVERIFY(at);
        const QPoint header(40, at->y());
        QCOMPARE(view.laneAt(header).value(), lane);
        auto menu = view.trackMenu(header);
        QVERIFY(menu);
        QCOMPARE(menu->actions().size(), 1);
        QCOMPARE(menu->actions()[0]->text(), QString("Pin to top"));
        menu->actions()[0]->trigger();
        QCOMPARE(int(view.pinned().size()), 1);
        QCOMPARE(view.pinned()[0], lane);
        const int laneRows = int(std::max<std::size_t>(1, view.stack()
                                                              ->ranks[0]
                                                              ->groups[std::size_t(lane.group)]
                                                              .lanes[std::size_t(lane.lane)]
                                                              .rows.size()));
        QCOMPARE(view.pinnedHeight(), std::min(laneRows * view.layout().rows()[last].height,
                                               (320 - TimelineView::kHeaderHeight) / 2));
        QCOMPARE(view.rowsTop(), TimelineView::kHeaderHeight + view.pinnedHeight());
        // Whatever the scroll, the pinned lane is right under the header.
        const QPoint pinnedPoint(40, TimelineView::kHeaderHeight + 5);
        const QImage pinnedArea =
            view.grab().toImage().copy(0, TimelineView::kHeaderHeight, 1200, view.pinnedHeight());
        for (int notches : {0, 3, 100}) {
            view.scrollToRow(0);
            sendWheel(&view, QPoint(600, 250), -120 * notches, Qt::NoModifier);
            QCOMPARE(view.laneAt(pinnedPoint).value(), lane);
            QCOMPARE(view.grab().toImage().copy(0, TimelineView::kHeaderHeight, 1200,
                                                view.pinnedHeight()),
                     pinnedArea);
        }
        // Its slices are selectable there: a click on one selects a slice of that lane.
        const auto& laneRow = view.stack()
                                  ->ranks[0]
                                  ->groups[std::size_t(lane.group)]
                                  .lanes[std::size_t(lane.lane)]
                                  .rows[0];
        const timeline::SliceRef first{0, laneRow.events[0]};
        view.zoomToSlice(first);
        const int y = TimelineView::kHeaderHeight + view.layout().rows()[last].height / 2;
        const int x = int(std::lround(
            view.xOfTime(view.stack()->toDisplay(0, (laneRow.starts[0] + laneRow.ends[0]) / 2))));
        QTest::mouseClick(&view, Qt::LeftButton, {}, QPoint(x, y));
        QCOMPARE(view.selected(), first);
        // The header's menu now unpins; P pins the selected slice's track again.
        auto again = view.trackMenu(pinnedPoint);
        QCOMPARE(again->actions()[0]->text(), QString("Unpin"));
        again->actions()[0]->trigger();
        QVERIFY(view.pinned().empty());
        QCOMPARE(view.rowsTop(), TimelineView::kHeaderHeight);
        view.setFocus();
        QTest::keyClick(&view, Qt::Key_P);
        QCOMPARE(int(view.pinned().size()), 1);
        QCOMPARE(view.pinned()[0], lane);
        QTest::keyClick(&view, Qt::Key_P);
        QVERIFY(view.pinned().empty());
        QVERIFY(TimelineView::keyHelp().join('\n').contains("pin"));
    }

    // Two ranks over 0..1000 µs with one slice matched on both, 60 µs apart (500 and 560).
    static bool showTwoRanksSkewed(TimelineView& view) {
        view.resize(1200, 500);
        view.setStack(twoRankStack());
        view.show();
        if (!QTest::qWaitForWindowExposed(&view)) {
            return false;
        }
        view.setVisibleRange(0, 1000);
        timeline::MatchedSlices matched;
        matched.slices = {{0, 3}, {1, 3}};
        matched.startsUs = {500, 560};
        matched.skewUs = 60;
        view.setMatched(matched);
        return true;
    }

    // A range whose label sits just right of the skew's bracket: the skew's label moves
    // clear of it (it was drawn over it).
    void theSkewLabelNeverCoversTheRange() {
        TimelineView view;
        QVERIFY(showTwoRanksSkewed(view));
        view.setRange(std::make_pair(560.0, 640.0));
        (void)view.grab();
        const QRect skew = view.lastSkewLabel();
        const QRect range = view.lastRangeLabel();
        QVERIFY(!skew.isEmpty());
        QVERIFY(!range.isEmpty());
        // Where the skew's label went before: right after its bracket, over the range's.
        const int afterBracket = int(std::lround(view.xOfTime(560))) + 4;
        QVERIFY(QRect(afterBracket, range.y(), skew.width(), skew.height()).intersects(range));
        QVERIFY2(!skew.intersects(range), qPrintable(QString("skew %1,%2 %3x%4, range %5,%6 %7x%8")
                                                         .arg(skew.x())
                                                         .arg(skew.y())
                                                         .arg(skew.width())
                                                         .arg(skew.height())
                                                         .arg(range.x())
                                                         .arg(range.y())
                                                         .arg(range.width())
                                                         .arg(range.height())));
    }

    void hoverTimeNeverCoversTheSkew() {
        TimelineView view;
        QVERIFY(showTwoRanksSkewed(view));
        // The hover line just right of the skew's bracket, where its time would cover the
        // skew's label (from elsewhere first: a move to where the cursor is sends nothing).
        const int x = int(std::lround(view.xOfTime(560))) + 6;
        QTest::mouseMove(&view, QPoint(x - 100, 250));
        QTest::mouseMove(&view, QPoint(x, 300));
        const QImage frame = view.grab().toImage();
        const QRect skew = view.lastSkewLabel();
        const QRect hover = view.lastHoverLabel();
        QVERIFY(!skew.isEmpty());
        QVERIFY(!hover.isEmpty());
        QVERIFY2(!skew.intersects(hover), qPrintable(QString("skew %1,%2 %3x%4, hover %5,%6 %7x%8")
                                                         .arg(skew.x())
                                                         .arg(skew.y())
                                                         .arg(skew.width())
                                                         .arg(skew.height())
                                                         .arg(hover.x())
                                                         .arg(hover.y())
                                                         .arg(hover.width())
                                                         .arg(hover.height())));
        // The skew's text is still there to read, in its colour.
        QVERIFY(pixelsNear(frame, skew, QColor(0xd6, 0x24, 0x9f), 60) > 10);
        QVERIFY(pixelsNear(frame, hover, QColor(0x30, 0x30, 0x38), 10) > 10);
    }

    void selectionKeepsItsColourAtCoarseZoom() {
        // Two names of different colours, alternating, ten to a pixel column once fitted: the
        // column shows the first one's colour, so an odd (B) slice is not drawn as itself.
        QString a = "op_a", b;
        for (char c = 'b'; c <= 'z' && b.isEmpty(); ++c) {
            const QString name = QString("op_") + c;
            if (!(timeline::nameColour(name.toStdString()) == timeline::nameColour("op_a"))) {
                b = name;
            }
        }
        QVERIFY(!b.isEmpty());
        TraceBuilder builder;
        for (int i = 0; i < 10000; ++i) {
            builder.complete(i % 2 ? b : a, 2.0 * i, 1, "cpu_op");
        }
        TimelineView view;
        view.resize(1200, 400);
        view.setStack(stackOf(trace::parseTraceText(builder.object().toStdString(), "ab")));
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QVERIFY(20000.0 / view.tracksWidth() > 10); // µs per pixel: ten slices a column
        const timeline::SliceRef selected{0, 5001};
        QCOMPARE(QString::fromStdString(view.stack()->ranks[0]->trace.name(
                     view.stack()->ranks[0]->trace.events[selected.event])),
                 b);
        view.select(selected, false);
        const QImage frame = view.grab().toImage();
        const auto at = view.pointOfSlice(selected);
        QVERIFY(at);
        const QColor own = widgets::toQColor(timeline::nameColour(b.toStdString()));
        // Its own colour inside, the selection's black frame around, at this zoom too.
        QVERIFY2(pixelsNear(frame, QRect(at->x(), at->y() - 3, 1, 7), own, 6) == 7,
                 qPrintable(frame.pixelColor(*at).name()));
        QVERIFY(pixelsNear(frame, QRect(at->x() - 5, at->y(), 11, 1), Qt::black, 30) >= 2);
    }

    void rankChooserIsNotCut() {
        widgets::TraceInspector inspector;
        inspector.resize(1366, 700);
        inspector.show();
        QVERIFY(QTest::qWaitForWindowExposed(&inspector));
        inspector.setStack(twoRankStack()); // the items arrive after the first show
        QTest::qWait(20);
        auto* focus = inspector.focusChooser();
        QVERIFY(focus->isVisible());
        QCOMPARE(focus->count(), 2);
        const int text = focus->fontMetrics().horizontalAdvance(focus->itemText(1));
        QVERIFY2(focus->width() >= text + 20,
                 qPrintable(QString("%1 px for %2 px of text").arg(focus->width()).arg(text)));
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
