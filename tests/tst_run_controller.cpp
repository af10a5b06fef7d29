// SPDX-License-Identifier: GPL-3.0-or-later
// The run controller without a window: what it needs to start, the model and log it feeds, a
// finished run's states kept for a re-plan of the same cells, and its end ending the ranks.
// Real commprof-rank processes over Gloo, on a model small enough to run in seconds.

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

#include <algorithm>

using namespace commprof;

namespace {

std::shared_ptr<const feasibility::Plan> planOf(const QString& file) {
    feasibility::PlanOptions o;
    o.overrides = {16.0, std::nullopt, 0};
    return std::make_shared<const feasibility::Plan>(feasibility::makePlan(file, o));
}

const QString kRank = COMMPROF_BIN_DIR "/commprof-rank";

// Two real cells of a 1e5-parameter MLP (world sizes 1 and 2), `iterations` each.
QString tinyMatrix(const QTemporaryDir& dir, int iterations) {
    const QString path = dir.filePath("tiny.yaml");
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly)) {
        return {};
    }
    f.write(QString("name: tiny\ndefaults: {iterations: %1, warmup: 1, batch_size: 4, "
                    "timeout_s: 300}\nmodels: [{name: mlp2m, params: 1e5}]\nlayers: [{name: "
                    "gloo_cpu}]\nworld_sizes: [1, 2]\n")
                .arg(iterations)
                .toUtf8());
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

    void aRunFeedsTheModelAndTheLogAndKeepsItsStates() {
        QTemporaryDir dir, out;
        models::RunController run;
        const QString matrix = tinyMatrix(dir, 4);
        run.setPlan(planOf(matrix));
        run.setOutput(out.path(), kRank);
        QStringList log;
        connect(&run, &models::RunController::logLine, this, [&](const QString& l) { log << l; });
        QSignalSpy done(&run, &models::RunController::finished);
        run.start();
        QVERIFY(run.running());
        // Choosing another folder mid-run leaves the run's own: its end names (and the window
        // opens) the folder it wrote.
        QTemporaryDir elsewhere;
        run.setOutput(elsewhere.path(), kRank);
        QVERIFY(done.wait(60000));
        QVERIFY(!run.running());
        const auto summary = done.at(0).at(0).value<runner::RunSummary>();
        QCOMPARE(summary.complete, 2);
        QCOMPARE(done.at(0).at(1).toString(), QDir(out.path()).absolutePath());
        QVERIFY2(log.first().startsWith("run started: 2 cells into "), qPrintable(log.join('\n')));
        QVERIFY2(std::any_of(log.begin(), log.end(),
                             [](const QString& l) {
                                 return l.startsWith("mlp2m_gloo_cpu_ws2_r0: complete");
                             }),
                 qPrintable(log.join('\n')));
        QCOMPARE(log.last(), QString("run finished: 2 complete, 0 failed, 0 stopped, 0 already "
                                     "complete, 0 skipped_infeasible"));
        // The ranks really ran: each wrote its result file.
        QVERIFY(
            QFile::exists(out.filePath("cells/mlp2m_gloo_cpu_ws2_r0/" +
                                       QString::fromStdString(spec::files::kRankResult.of(1)))));
        const auto* cell = run.model()->cell("mlp2m_gloo_cpu_ws1_r0");
        QVERIFY(cell);
        QCOMPARE(cell->state, runner::CellState::Complete);
        // The designer re-plans the same cells when the results open: the states stay.
        run.setPlan(planOf(matrix));
        QVERIFY(!run.showPlan());
        QCOMPARE(run.model()->cell("mlp2m_gloo_cpu_ws1_r0")->state, runner::CellState::Complete);
        // A plan of other cells (the smoke matrix adds a sweep) is listed afresh, all pending.
        run.setPlan(planOf(COMMPROF_SOURCE_DIR "/configs/experiments/smoke.yaml"));
        QVERIFY(run.showPlan());
        QVERIFY(run.model()->cellCount() > 2);
        QCOMPARE(run.model()->cell("mlp2m_gloo_cpu_ws1_r0")->state, runner::CellState::Pending);
    }

    // The controller owns the run: destroying it mid-cell ends the cell's ranks.
    void itsEndEndsTheRanks() {
        QTemporaryDir dir, out;
        auto* run = new models::RunController;
        run->setPlan(planOf(tinyMatrix(dir, 1000000))); // runs until it is ended
        run->setOutput(out.path(), kRank);
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
