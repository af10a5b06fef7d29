// SPDX-License-Identifier: GPL-3.0-or-later
// The run monitor driving real rank processes over a two-cell matrix, offscreen.

#include "feasibility/plan.h"
#include "message_bar.h"
#include "models/run_controller.h"
#include "models/run_state_model.h"
#include "output_folder_dialog.h"
#include "rank_files.h"
#include "report/report_data.h"
#include "result_plots.h"
#include "run_monitor.h"
#include "runner/process_identity.h"
#include "store/ingest.h"

#include <qcustomplot.h>

#include <QAbstractItemModelTester>
#include <QDir>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace commprof;

namespace {

std::shared_ptr<const feasibility::Plan> planOf(const QString& yaml) {
    feasibility::PlanOptions o;
    o.overrides = {16.0, std::nullopt, 0};
    return std::make_shared<const feasibility::Plan>(
        feasibility::makePlan(matrix::parseMatrix(yaml.toUtf8(), "inline.yaml"), o));
}

// Quick real cells: a 2e5-parameter MLP over gloo at world size 1, `repeats` times.
QString quickDdp(int iterations, int repeats) {
    return QString("name: quick\ndefaults: {iterations: %1, warmup: 1, batch_size: 8, timeout_s: "
                   "120}\nmodels: [{name: tiny, params: 2e5}]\nlayers: [{name: gloo_cpu}]\n"
                   "world_sizes: [1]\nrepeats: %2\n")
        .arg(iterations)
        .arg(repeats);
}

// Runs the monitor's plan to its end; the run's summary.
runner::RunSummary runToEnd(widgets::RunMonitor& monitor) {
    QSignalSpy done(&monitor, &widgets::RunMonitor::finished);
    monitor.controller()->start();
    if (!done.wait(120000)) {
        return {};
    }
    return done.first().at(0).value<runner::RunSummary>();
}

QString stateOf(const widgets::RunMonitor& monitor, const QString& id) {
    const auto* m = monitor.model();
    return m->data(m->index(m->rowOf(id), models::RunStateModel::State)).toString();
}

} // namespace

class TstGuiRunMonitor : public QObject {
    Q_OBJECT
private slots:
    void runOfSmokeCompletesAndEveryIterationIsSeen() {
        QTemporaryDir out;
        widgets::RunMonitor monitor;
        QAbstractItemModelTester tester(monitor.model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        feasibility::PlanOptions o;
        o.overrides = {16.0, std::nullopt, 0};
        monitor.setPlan(std::make_shared<const feasibility::Plan>(
            feasibility::makePlan(COMMPROF_TEST_DATA "/two_ddp_cells.yaml", o)));
        monitor.controller()->setOutput(out.path(), rankBinary());
        monitor.resize(900, 700);
        monitor.show();
        QSignalSpy done(&monitor, &widgets::RunMonitor::finished);
        monitor.controller()->start();
        QVERIFY(monitor.controller()->running());
        QCOMPARE(monitor.overallProgress()->maximum(), 2);
        // Mid-run, once the first cell is done: an estimate of the time left.
        QTRY_VERIFY_WITH_TIMEOUT(monitor.model()->cellsFinished() >= 1 || done.count() > 0, 240000);
        if (done.isEmpty()) {
            QVERIFY2(monitor.findChild<QLabel*>("eta")->text().contains("left"),
                     qPrintable(monitor.findChild<QLabel*>("eta")->text()));
        }
        QVERIFY(done.count() > 0 || done.wait(240000));
        const auto summary = done.takeFirst().at(0).value<runner::RunSummary>();
        QCOMPARE(summary.complete, 2);
        for (const auto& [id, world] : {std::pair{QString("mlp2m_gloo_cpu_ws1_r0"), 1},
                                        std::pair{QString("mlp2m_gloo_cpu_ws2_r0"), 2}}) {
            const auto* cell = monitor.model()->cell(id);
            QVERIFY(cell);
            QCOMPARE(cell->state, runner::CellState::Complete);
            QCOMPARE(int(cell->ranks.size()), world);
            for (const auto& rank : cell->ranks) {
                QCOMPARE(rank.eventsSeen, 30);
                QCOMPARE(rank.iteration, 30);
                QVERIFY(rank.lastStepMs > 0);
            }
            QVERIFY(QFile::exists(out.filePath("cells/" + id + "/manifest.json")));
        }
        QCOMPARE(monitor.overallProgress()->value(), 2);
        // The live plot holds the last cell's points only: one graph per rank of ws2, named
        // in the legend, over whole iterations.
        QCustomPlot* plot = monitor.bucketPlot();
        QCOMPARE(plot->graphCount(), 2);
        QCOMPARE(plot->graph(0)->name(), QString("rank 0"));
        QVERIFY(plot->legend->visible());
        QVERIFY(plot->graph(0)->dataCount() > 10);
        plot->replot();
        for (double tick : plot->xAxis->tickVector()) {
            QCOMPARE(tick, std::round(tick));
        }
        // No point on or outside the frame.
        for (int g = 0; g < plot->graphCount(); ++g) {
            for (auto it = plot->graph(g)->data()->begin(); it != plot->graph(g)->data()->end();
                 ++it) {
                QVERIFY(plot->xAxis->range().contains(it->key) &&
                        it->key > plot->xAxis->range().lower);
                QVERIFY(plot->yAxis->range().contains(it->value) &&
                        it->value < plot->yAxis->range().upper);
            }
        }
        QVERIFY(monitor.logText().contains("run finished: 2 complete, 0 failed, 0 stopped"));
        // The log follows its tail.
        QCOMPARE(monitor.log()->verticalScrollBar()->value(),
                 monitor.log()->verticalScrollBar()->maximum());
        // The cell column is wide enough for the whole id, the header for its title.
        const QFontMetrics fm = monitor.table()->fontMetrics();
        QVERIFY(monitor.table()->columnWidth(0) >= fm.horizontalAdvance("mlp2m_gloo_cpu_ws2_r0"));
        QVERIFY(monitor.table()->columnWidth(2) >=
                monitor.table()->horizontalHeader()->fontMetrics().horizontalAdvance(
                    "elapsed / deadline"));
    }

    void etaFollowsFinishedCells() {
        models::RunStateModel m;
        m.setPlan(planOf("name: e\nmodels: [{name: tiny, params: 2e5}]\n"
                         "layers: [{name: gloo_cpu}]\nworld_sizes: [1, 2, 3]\n"));
        QVERIFY(!m.etaSeconds()); // no basis yet
        m.onCellState("tiny_gloo_cpu_ws1_r0", runner::CellState::Running, {});
        QTest::qWait(300);
        m.onCellState("tiny_gloo_cpu_ws1_r0", runner::CellState::Complete, {});
        const double cellS = m.cell("tiny_gloo_cpu_ws1_r0")->elapsedMs / 1000.0;
        QVERIFY(cellS >= 0.3);
        // Two cells to go, each as long as the one that ran (by hand: 2 x its time).
        QVERIFY(std::abs(*m.etaSeconds() - 2 * cellS) < 1e-9);
        m.onCellState("tiny_gloo_cpu_ws2_r0", runner::CellState::Running, {});
        m.onCellState("tiny_gloo_cpu_ws2_r0", runner::CellState::Complete, {});
        m.onCellState("tiny_gloo_cpu_ws3_r0", runner::CellState::SkippedInfeasible, {});
        QCOMPARE(m.cellsFinished(), 3);
        QCOMPARE(*m.etaSeconds(), 0.0);
    }

    void stopEndsEveryRankAndLeavesTheDirectoryConsistent() {
        QTemporaryDir out;
        widgets::RunMonitor monitor;
        monitor.setPlan(planOf("name: long\nmodels: [{name: tiny, params: 2e5}]\n"
                               "layers: [{name: gloo_cpu, overrides: {iterations: 100000, warmup: "
                               "1, batch_size: 8, timeout_s: 300}}]\n"
                               "world_sizes: [2, 1]\n"));
        monitor.controller()->setOutput(out.path(), rankBinary());
        QSignalSpy done(&monitor, &widgets::RunMonitor::finished);
        monitor.controller()->start();
        QTRY_VERIFY_WITH_TIMEOUT(
            monitor.model()->cell("tiny_gloo_cpu_ws2_r0")->ranks.value(1).iteration >= 3, 60000);
        QList<runner::PidRecord> ranks;
        const QDir pids(out.filePath(".pids"));
        for (const QString& f : pids.entryList({"*.pid"})) {
            runner::PidRecord r;
            QVERIFY(runner::readPidRecord(pids.filePath(f), r));
            ranks << r;
        }
        QCOMPARE(ranks.size(), 2);
        monitor.controller()->stop();
        QVERIFY(done.wait(60000));
        QVERIFY(done.takeFirst().at(0).value<runner::RunSummary>().stopped);
        // The user's Stop is "stopped" here, not a failure.
        const int row = monitor.model()->rowOf("tiny_gloo_cpu_ws2_r0");
        QCOMPARE(monitor.model()
                     ->data(monitor.model()->index(row, models::RunStateModel::State))
                     .toString(),
                 QString("stopped"));
        QVERIFY2(monitor.logText().contains("0 failed, 1 stopped"), qPrintable(monitor.logText()));
        // Issue 40: the log says the cell stopped (not "failed stopped on request"), and the
        // stopped run can be resumed into its folder.
        QVERIFY2(monitor.logText().contains("tiny_gloo_cpu_ws2_r0: stopped"),
                 qPrintable(monitor.logText()));
        QVERIFY2(!monitor.logText().contains("failed stopped"), qPrintable(monitor.logText()));
        QCOMPARE(monitor.startButton()->text(), QString("Resume"));
        for (const auto& r : ranks) {
            QVERIFY(!runner::stillRunning(r));
        }
        const QString cell = out.filePath("cells/tiny_gloo_cpu_ws2_r0");
        QVERIFY(!QFile::exists(cell + "/manifest.json"));
        QCOMPARE(readJsonFile(cell + "/cell.json")["status"].toString(), QString("stopped"));
        QCOMPARE(monitor.model()->cell("tiny_gloo_cpu_ws2_r0")->state, runner::CellState::Stopped);
        QVERIFY2(!monitor.logText().contains("tiny_gloo_cpu_ws2_r0: failed"),
                 qPrintable(monitor.logText()));
        QCOMPARE(readJsonFile(cell + "/cell.json")["stopped"].toBool(), true);
        QVERIFY(!QDir(out.filePath("cells/tiny_gloo_cpu_ws1_r0")).exists()); // never started
        QVERIFY(pids.entryList({"*.pid"}).isEmpty());
        // Opened as results (what the window does when the run ends): still stopped, and the
        // figures mark it as a cell without data.
        store::ingest(out.path(), store::defaultDbPath(out.path()));
        store::Database db(store::defaultDbPath(out.path()));
        const report::ReportData data =
            report::loadReportData(db, QDir(out.path()).canonicalPath());
        const store::CellRow* stopped = widgets::findCell(data, "tiny_gloo_cpu_ws2_r0");
        QVERIFY(stopped);
        QCOMPARE(stopped->status, QString("stopped"));
        QVERIFY(widgets::flaggedCell(*stopped));
    }

    // Issue 29 item 11: sweeps (seconds) and DDP cells (several times longer) are estimated
    // apart, each from the finished cells of its kind and world size.
    void etaIsPerKindAndWorldSize() {
        models::RunStateModel m;
        m.setPlan(planOf("name: e\nmodels: [{name: tiny, params: 2e5}, {name: sw, kind: sweep}]\n"
                         "layers: [{name: gloo_cpu}]\nworld_sizes: [1, 2]\nrepeats: 2\n"));
        QCOMPARE(m.cellCount(), 8);
        const auto ran = [&](const QString& id, int ms) {
            m.onCellState(id, runner::CellState::Running, {});
            QTest::qWait(ms);
            m.onCellState(id, runner::CellState::Complete, {});
            return m.cell(id)->elapsedMs;
        };
        const double sweep1 = ran("sw_gloo_cpu_ws1_r0", 60);
        const double ddp1 = ran("tiny_gloo_cpu_ws1_r0", 500);
        const double ddp2 = ran("tiny_gloo_cpu_ws2_r0", 900);
        // By hand, for the five cells to go: tiny ws1 r1 as tiny ws1 r0, tiny ws2 r1 as tiny ws2
        // r0, the three sweeps (ws1 r1, ws2 r0 and r1) as the one sweep that ran.
        const double expected = (ddp1 + ddp2 + 3 * sweep1) / 1000.0;
        QVERIFY2(std::abs(*m.etaSeconds() - expected) < 1e-9,
                 qPrintable(QString("%1 s, by hand %2 s").arg(*m.etaSeconds()).arg(expected)));
        // One mean over all (the old estimate) would say 5 x the mean of the three.
        QVERIFY(std::abs(*m.etaSeconds() - 5 * (sweep1 + ddp1 + ddp2) / 3 / 1000.0) > 0.2);
        // A world size no cell of its kind ran at takes its kind's mean: a ws2 sweep running
        // for a moment, with 2 DDP cells and 2 sweeps left.
        m.onCellState("sw_gloo_cpu_ws2_r0", runner::CellState::Running, {});
        m.onCellState("tiny_gloo_cpu_ws1_r1", runner::CellState::Complete, {}); // never timed
        const double runningMs = m.cell("sw_gloo_cpu_ws2_r0")->elapsedMs;
        const double left = (std::max(0.0, sweep1 - runningMs) + ddp2 + 2 * sweep1) / 1000.0;
        QVERIFY2(std::abs(*m.etaSeconds() - left) < 1e-9,
                 qPrintable(QString("%1 s, by hand %2 s").arg(*m.etaSeconds()).arg(left)));
    }

    // Issue 29 item 12: a pause leaves the run resumable; Resume runs the cells left into the
    // same folder, and the cell done before the pause stays done (it is not run again).
    void pauseThenResumeCompletesTheRun() {
        QTemporaryDir out;
        widgets::RunMonitor monitor;
        monitor.setPlan(planOf(quickDdp(200, 3)));
        monitor.controller()->setOutput(out.path(), rankBinary());
        monitor.show();
        QSignalSpy done(&monitor, &widgets::RunMonitor::finished);
        monitor.controller()->start();
        QTRY_VERIFY_WITH_TIMEOUT(
            monitor.model()->cell("tiny_gloo_cpu_ws1_r0")->ranks.value(0).iteration >= 1, 60000);
        monitor.controller()->pauseAfterCurrentCell();
        QVERIFY(done.wait(120000));
        const auto paused = done.takeFirst().at(0).value<runner::RunSummary>();
        QCOMPARE(paused.complete, 1);
        QVERIFY(monitor.controller()->paused());
        QCOMPARE(monitor.startButton()->text(), QString("Resume"));
        QVERIFY2(monitor.logText().contains("run paused: 1 complete, 0 failed, 0 stopped, 0 "
                                            "already complete, 0 skipped_infeasible; 2 cells "
                                            "still to run"),
                 qPrintable(monitor.logText()));
        QCOMPARE(monitor.findChild<QLabel*>("eta")->text(),
                 QString("paused: 1 complete, 2 pending; Resume runs the "
                         "pending cells"));
        const QString first = out.filePath("cells/tiny_gloo_cpu_ws1_r0/manifest.json");
        const QString finishedAt = readJsonFile(first)["finished_at"].toString();
        QVERIFY(!finishedAt.isEmpty());
        QVERIFY(!QFile::exists(out.filePath("cells/tiny_gloo_cpu_ws1_r1")));

        monitor.controller()->start(); // Resume
        QVERIFY(done.wait(120000));
        const auto resumed = done.takeFirst().at(0).value<runner::RunSummary>();
        QCOMPARE(resumed.complete, 2);
        QCOMPARE(resumed.resumed, 1);
        QVERIFY(!resumed.stopped);
        QVERIFY(!monitor.controller()->paused());
        QCOMPARE(monitor.startButton()->text(), QString("Start"));
        for (const QString id :
             {"tiny_gloo_cpu_ws1_r0", "tiny_gloo_cpu_ws1_r1", "tiny_gloo_cpu_ws1_r2"}) {
            QCOMPARE(stateOf(monitor, id), QString("complete"));
            QVERIFY(QFile::exists(out.filePath("cells/" + id + "/manifest.json")));
        }
        QCOMPARE(readJsonFile(first)["finished_at"].toString(), finishedAt); // not run again
        QCOMPARE(monitor.overallProgress()->value(), 3);
        QVERIFY2(monitor.logText().contains("run resumed: 2 of 3 cells to run"),
                 qPrintable(monitor.logText()));
        QVERIFY2(monitor.logText().contains("run finished: 2 complete, 0 failed, 0 stopped, 1 "
                                            "already complete"),
                 qPrintable(monitor.logText()));
        QCOMPARE(monitor.findChild<QLabel*>("eta")->text(), QString("3 cells: 3 complete"));
    }

    // Issue 29 item 10: after a run the rank bars show the last cell's own figures (a sweep
    // measures sizes, not iterations) under its name; a run of cells already complete says how
    // many it passed over.
    void theEndShowsTheLastCellAndCountsSkippedCells() {
        QTemporaryDir out;
        widgets::RunMonitor monitor;
        monitor.setPlan(planOf("name: mix\ndefaults: {iterations: 5, warmup: 1, batch_size: 8, "
                               "timeout_s: 120}\nmodels: [{name: tiny, params: 2e5}, {name: sw, "
                               "kind: sweep, max_bytes: 65536, iterations: 3, warmup: 1, "
                               "collectives: [all_reduce]}]\nlayers: [{name: "
                               "gloo_cpu}]\nworld_sizes: [1]\n"));
        monitor.controller()->setOutput(out.path(), rankBinary());
        monitor.show();
        QCOMPARE(monitor.rankBarTexts(), QStringList()); // nothing has run
        QCOMPARE(runToEnd(monitor).complete, 2);
        QCOMPARE(monitor.model()->currentCell(), QString("sw_gloo_cpu_ws1_r0")); // ran last
        QCOMPARE(monitor.rankBarsTitle(),
                 QString("Ranks of the last cell, sw_gloo_cpu_ws1_r0 (complete):"));
        // By hand: the sweep's last collective (all_reduce) at its largest size, 65536 B.
        QCOMPARE(monitor.rankBarTexts(), QStringList{"rank 0: swept, last all_reduce 64 KiB"});
        QCOMPARE(monitor.findChild<QLabel*>("eta")->text(), QString("2 cells: 2 complete"));
        // The live plot of a sweep says why it has no points, instead of waiting for buckets.
        QCOMPARE(monitor.plotNote(), QString("no data: a collective sweep has no DDP buckets"));
        QCOMPARE(monitor.plottedPoints(), 0);

        // Again into the same folder: both cells are complete there, and the end says so.
        QCOMPARE(runToEnd(monitor).resumed, 2);
        QVERIFY2(monitor.logText().contains("run finished: 0 complete, 0 failed, 0 stopped, 2 "
                                            "already complete, 0 skipped_infeasible"),
                 qPrintable(monitor.logText()));
        QCOMPARE(monitor.findChild<QLabel*>("eta")->text(), QString("2 cells: 2 already complete"));
        QCOMPARE(monitor.overallProgress()->value(), 2);
    }

    // Issue 29 item 9 and the refused run: the chooser takes a folder to be made, says at once
    // why the runner would refuse one (other files, another matrix's run) and lists a new
    // folder's cells afresh; a run the runner refuses is said in the monitor's message bar.
    void theOutputFolderIsJudgedAsTheRunnerWould() {
        QTemporaryDir work;
        const QString made = QDir(work.path()).filePath("made");
        widgets::RunMonitor monitor;
        const auto plan = planOf(quickDdp(3, 1));
        monitor.setPlan(plan);
        monitor.controller()->setOutput(made, rankBinary());
        monitor.show();
        QCOMPARE(runToEnd(monitor).complete, 1);
        QCOMPARE(runToEnd(monitor).resumed, 1);
        QCOMPARE(stateOf(monitor, "tiny_gloo_cpu_ws1_r0"), QString("skipped"));

        // A path typed that does not exist yet: the run makes it.
        const QString fresh = QDir(work.path()).filePath("fresh/run1");
        widgets::OutputFolderDialog dialog(made, plan);
        QVERIFY(dialog.acceptable());
        QVERIFY2(dialog.note().contains("continues it"), qPrintable(dialog.note()));
        dialog.field()->clear();
        QTest::keyClicks(dialog.field(), fresh);
        QVERIFY2(dialog.acceptable(), qPrintable(dialog.note()));
        QCOMPARE(dialog.folder(), fresh);
        QCOMPARE(dialog.note(), QString("A new folder: the run makes it."));
        // A folder of someone's files: refused beside the field, as the runner words it.
        QVERIFY(QDir().mkpath(work.filePath("mine")));
        QFile notes(work.filePath("mine/notes.txt"));
        QVERIFY(notes.open(QIODevice::WriteOnly));
        notes.close();
        dialog.field()->setText(work.filePath("mine"));
        QVERIFY(!dialog.acceptable());
        QCOMPARE(dialog.note(), QString("%1 already holds other files (notes.txt) and is not a "
                                        "results folder; choose an empty folder or a results "
                                        "folder to continue")
                                    .arg(QDir::toNativeSeparators(work.filePath("mine"))));
        // The folder of the run above, for another matrix: refused too.
        const auto other = planOf(quickDdp(3, 2));
        widgets::OutputFolderDialog forOther(made, other);
        QVERIFY(!forOther.acceptable());
        QVERIFY2(forOther.note().contains("records a run of another matrix"),
                 qPrintable(forOther.note()));

        // The monitor moved to the new folder lists its cells afresh, not the last run's rows.
        monitor.controller()->setOutput(fresh, rankBinary());
        QCOMPARE(stateOf(monitor, "tiny_gloo_cpu_ws1_r0"), QString("pending"));
        QCOMPARE(monitor.overallProgress()->value(), 0);
        QCOMPARE(monitor.findChild<QLabel*>("eta")->text(), QString("1 cell planned"));

        // Started anyway on the other matrix's folder: the runner refuses, and the message bar
        // says so (not only a line of the log).
        monitor.setPlan(other);
        monitor.controller()->setOutput(made, rankBinary());
        const auto refused = runToEnd(monitor);
        QVERIFY(refused.refused.contains("records a run of another matrix"));
        const QStringList shown = monitor.messages()->shownMessages();
        QCOMPARE(shown.size(), 1);
        QCOMPARE(shown.first(), "The run did not start: " + refused.refused);
        QCOMPARE(monitor.logText().split('\n').last(), "run refused: " + refused.refused);
    }
};

QTEST_MAIN(TstGuiRunMonitor)
#include "tst_gui_run_monitor.moc"
