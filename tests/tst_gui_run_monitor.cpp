// SPDX-License-Identifier: GPL-3.0-or-later
// The run monitor driving real rank processes over a two-cell matrix, offscreen.

#include "feasibility/plan.h"
#include "models/run_state_model.h"
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
#include <QPlainTextEdit>
#include <QProgressBar>
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
        monitor.setOutput(out.path(), rankBinary());
        monitor.resize(900, 700);
        monitor.show();
        QSignalSpy done(&monitor, &widgets::RunMonitor::finished);
        monitor.start();
        QVERIFY(monitor.running());
        QCOMPARE(monitor.overallProgress()->maximum(), 2);
        // Mid-run, once the first cell is done: an estimate of the time left.
        QTRY_VERIFY_WITH_TIMEOUT(monitor.model()->cellsFinished() >= 1 || done.count() > 0, 240000);
        if (done.isEmpty()) {
            QVERIFY2(monitor.etaText().contains("left"), qPrintable(monitor.etaText()));
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
        monitor.setOutput(out.path(), rankBinary());
        QSignalSpy done(&monitor, &widgets::RunMonitor::finished);
        monitor.start();
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
        monitor.stop();
        QVERIFY(done.wait(60000));
        QVERIFY(done.takeFirst().at(0).value<runner::RunSummary>().stopped);
        // The user's Stop is "stopped" here, not a failure.
        const int row = monitor.model()->rowOf("tiny_gloo_cpu_ws2_r0");
        QCOMPARE(monitor.model()
                     ->data(monitor.model()->index(row, models::RunStateModel::State))
                     .toString(),
                 QString("stopped"));
        QVERIFY2(monitor.logText().contains("0 failed, 1 stopped"), qPrintable(monitor.logText()));
        for (const auto& r : ranks) {
            QVERIFY(!runner::stillRunning(r));
        }
        const QString cell = out.filePath("cells/tiny_gloo_cpu_ws2_r0");
        QVERIFY(!QFile::exists(cell + "/manifest.json"));
        QCOMPARE(readJsonFile(cell + "/cell.json")["status"].toString(), QString("failed"));
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
};

QTEST_MAIN(TstGuiRunMonitor)
#include "tst_gui_run_monitor.moc"
