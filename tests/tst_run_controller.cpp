// SPDX-License-Identifier: GPL-3.0-or-later
// The run controller without a window: what it needs to start, the model and log it feeds, a
// finished run's states kept for a re-plan of the same cells, and its end ending the ranks.
// The ranks are stand-ins (shell scripts), so what is tested is the controller, in seconds.

#include "feasibility/plan.h"
#include "models/run_controller.h"
#include "models/run_state_model.h"
#include "runner/process_identity.h"
#include "spec/rank_contract.h"

#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace commprof;

namespace {

std::shared_ptr<const feasibility::Plan> planOf(const QString& file) {
    feasibility::PlanOptions o;
    o.overrides = {16.0, std::nullopt, 0};
    return std::make_shared<const feasibility::Plan>(feasibility::makePlan(file, o));
}

QString script(const QTemporaryDir& dir, const QByteArray& body) {
    const QString path = dir.filePath("rank.sh");
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly)) {
        return {};
    }
    f.write("#!/bin/sh\n" + body);
    f.close();
    f.setPermissions(f.permissions() | QFileDevice::ExeOwner);
    return path;
}

} // namespace

class TstRunController : public QObject {
    Q_OBJECT
private slots:
    void startNeedsAPlanAndAFolder() {
        models::RunController run;
        QSignalSpy started(&run, &models::RunController::started);
        run.start();
        run.setPlan(planOf(COMMPROF_TEST_DATA "/two_ddp_cells.yaml"));
        run.start(); // still no folder
        QVERIFY(!run.running());
        QCOMPARE(started.count(), 0);
        QVERIFY(run.showPlan());
        QVERIFY(!run.showPlan()); // listed once
        QCOMPARE(run.model()->cellCount(), 2);
    }

    // Ranks that write nothing: every cell fails for want of its rank files, and the run ends.
    void aRunFeedsTheModelAndTheLogAndKeepsItsStates() {
        QTemporaryDir out;
        models::RunController run;
        const auto plan = planOf(COMMPROF_TEST_DATA "/two_ddp_cells.yaml");
        run.setPlan(plan);
        run.setOutput(out.path(), script(out, "exit 0\n"));
        QStringList log;
        connect(&run, &models::RunController::logLine, this, [&](const QString& l) { log << l; });
        QSignalSpy done(&run, &models::RunController::finished);
        run.start();
        QVERIFY(run.running());
        QVERIFY(done.wait(60000));
        QVERIFY(!run.running());
        const auto summary = done.at(0).at(0).value<runner::RunSummary>();
        QCOMPARE(summary.failed, 2);
        QCOMPARE(done.at(0).at(1).toString(), QDir(out.path()).absolutePath());
        QVERIFY2(log.first().startsWith("run started: 2 cells into "), qPrintable(log.join('\n')));
        QVERIFY(log.contains("mlp2m_gloo_cpu_ws2_r0: failed " +
                             QString::fromStdString(spec::files::kRankResult.of(0)) + " missing"));
        QCOMPARE(log.last(), QString("run finished: 0 complete, 2 failed, 0 stopped, 0 "
                                     "skipped_infeasible"));
        const auto* cell = run.model()->cell("mlp2m_gloo_cpu_ws1_r0");
        QVERIFY(cell);
        QCOMPARE(cell->state, runner::CellState::Failed);
        // The designer re-plans the same cells when the results open: the states stay.
        run.setPlan(planOf(COMMPROF_TEST_DATA "/two_ddp_cells.yaml"));
        QVERIFY(!run.showPlan());
        QCOMPARE(run.model()->cell("mlp2m_gloo_cpu_ws1_r0")->state, runner::CellState::Failed);
        // A plan of other cells (the smoke matrix adds a sweep) is listed afresh, all pending.
        run.setPlan(planOf(COMMPROF_SOURCE_DIR "/configs/experiments/smoke.yaml"));
        QVERIFY(run.showPlan());
        QVERIFY(run.model()->cellCount() > 2);
        QCOMPARE(run.model()->cell("mlp2m_gloo_cpu_ws1_r0")->state, runner::CellState::Pending);
    }

    // The controller owns the run: destroying it mid-cell ends the cell's ranks.
    void itsEndEndsTheRanks() {
        QTemporaryDir out;
        auto* run = new models::RunController;
        run->setPlan(planOf(COMMPROF_TEST_DATA "/two_ddp_cells.yaml"));
        run->setOutput(out.path(), script(out, "exec sleep 120\n"));
        run->start();
        const QString pidFile = QDir(out.filePath(spec::files::kPidDir))
                                    .filePath("mlp2m_gloo_cpu_ws1_r0_" +
                                              QString::fromStdString(spec::files::kPidFile.of(0)));
        runner::PidRecord rank;
        QTRY_VERIFY_WITH_TIMEOUT(runner::readPidRecord(pidFile, rank), 30000);
        QVERIFY(runner::processStartTime(rank.pid) != 0);
        delete run;
        QTRY_VERIFY_WITH_TIMEOUT(runner::processStartTime(rank.pid) == 0, 10000);
    }
};

QTEST_GUILESS_MAIN(TstRunController)
#include "tst_run_controller.moc"
