// The run monitor driving real rank processes over smoke.yaml, offscreen.

#include "feasibility/plan.h"
#include "models/run_state_model.h"
#include "rank_files.h"
#include "run_monitor.h"
#include "runner/process_identity.h"

#include <qcustomplot.h>

#include <QAbstractItemModelTester>
#include <QDir>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace commprof;

namespace {

feasibility::Plan planOf(const QString& yaml) {
    feasibility::PlanOptions o;
    o.overrides = {16.0, std::nullopt, 0};
    return feasibility::makePlan(matrix::parseMatrix(yaml.toUtf8(), "inline.yaml"), o);
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
        monitor.setPlan(
            feasibility::makePlan(COMMPROF_SOURCE_DIR "/configs/experiments/smoke.yaml", o));
        monitor.setOutput(out.path(), rankBinary());
        monitor.resize(900, 700);
        monitor.show();
        QSignalSpy done(&monitor, &widgets::RunMonitor::finished);
        monitor.start();
        QVERIFY(monitor.running());
        QVERIFY(done.wait(240000));
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
        QVERIFY(monitor.bucketPlot()->graphCount() >= 2);
        QVERIFY(monitor.bucketPlot()->graph(0)->dataCount() > 10);
        QVERIFY(monitor.logText().contains("run finished: 2 complete"));
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
        for (const auto& r : ranks) {
            QVERIFY(!runner::stillRunning(r));
        }
        const QString cell = out.filePath("cells/tiny_gloo_cpu_ws2_r0");
        QVERIFY(!QFile::exists(cell + "/manifest.json"));
        QCOMPARE(readJsonFile(cell + "/cell.json")["status"].toString(), QString("failed"));
        QCOMPARE(readJsonFile(cell + "/cell.json")["stopped"].toBool(), true);
        QVERIFY(!QDir(out.filePath("cells/tiny_gloo_cpu_ws1_r0")).exists()); // never started
        QVERIFY(pids.entryList({"*.pid"}).isEmpty());
    }
};

QTEST_MAIN(TstGuiRunMonitor)
#include "tst_gui_run_monitor.moc"
