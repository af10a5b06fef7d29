// SPDX-License-Identifier: GPL-3.0-or-later
// The run monitor over the Slurm launcher, offscreen, against a one-node Slurm of the test's
// own (local_slurm.h): each cell shows Slurm's state of its job with the job id, and Stop
// cancels the running cell's job. Skipped only when Slurm's programs are not installed.

#include "feasibility/plan.h"
#include "local_slurm.h"
#include "models/run_controller.h"
#include "models/run_state_model.h"
#include "rank_files.h"
#include "run_monitor.h"

#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

using namespace commprof;

class TstGuiSlurm : public QObject {
    Q_OBJECT
    LocalSlurm slurm_;

    static std::shared_ptr<const feasibility::Plan> planOf(const QString& yaml) {
        return std::make_shared<const feasibility::Plan>(
            feasibility::makePlan(matrix::parseMatrix(yaml.toUtf8(), "inline.yaml"), {}));
    }

private slots:
    void initTestCase() { COMMPROF_START_LOCAL_SLURM(slurm_); }

    void cleanupTestCase() { slurm_.stop(); }

    void monitorShowsJobStateAndStopCancelsTheJob() {
        QTemporaryDir out;
        QTcpServer free;
        free.listen(QHostAddress::LocalHost, 0);
        const quint16 port = free.serverPort();
        free.close();
        // A short ws1 run, then a ws2 run long enough to be stopped.
        const auto planOfRun = [&](int iterations, int world) {
            return planOf(QString("name: gui_slurm\n"
                                  "defaults: {iterations: %1, warmup: 2, batch_size: 8, "
                                  "timeout_s: 300}\n"
                                  "models: [{name: tiny, params: 2e5}]\n"
                                  "layers: [{name: gloo_cpu, backend: gloo, device: cpu}]\n"
                                  "world_sizes: [%2]\n"
                                  "launcher: {kind: slurm, rendezvous_port: %3}\n")
                              .arg(iterations)
                              .arg(world)
                              .arg(port));
        };
        widgets::RunMonitor monitor;
        monitor.setPlan(planOfRun(30, 1));
        monitor.controller()->setOutput(out.path(), rankBinary());
        monitor.resize(1000, 700);
        monitor.show();
        QVERIFY(!monitor.table()->isColumnHidden(models::RunStateModel::Scheduler));
        const QString shortCell = "tiny_gloo_cpu_ws1_r0";
        const QString longCell = "tiny_gloo_cpu_ws2_r0";
        models::RunStateModel* model = monitor.model();
        QMap<QString, QStringList> seen; // every scheduler text each cell showed
        connect(model, &QAbstractItemModel::dataChanged, this,
                [&](const QModelIndex& from, const QModelIndex& to) {
                    for (int row = from.row(); row <= to.row(); ++row) {
                        const QString text =
                            model->index(row, models::RunStateModel::Scheduler).data().toString();
                        const QString id =
                            model->index(row, models::RunStateModel::Cell).data().toString();
                        if (!text.isEmpty() && seen[id].value(seen[id].size() - 1) != text) {
                            seen[id] << text;
                        }
                    }
                });
        QSignalSpy done(&monitor, &widgets::RunMonitor::finished);
        monitor.controller()->start();
        QVERIFY(done.wait(180000));
        // The finished cell: Slurm's COMPLETED and the job id of its cell.json.
        const QString shortJob =
            readJsonFile(out.filePath("cells/" + shortCell + "/cell.json"))["launcher"]
                .toObject()["job_id"]
                .toString();
        QVERIFY(!shortJob.isEmpty());
        QVERIFY2(!seen[shortCell].isEmpty(), "the monitor showed no scheduler state");
        QVERIFY2(seen[shortCell].last().startsWith("COMPLETED job " + shortJob),
                 qPrintable(seen[shortCell].join(" | ")));
        // Whether a poll caught the short job RUNNING is a race with its few seconds of work;
        // the long cell below must be seen RUNNING.

        // Another matrix goes to a folder of its own: the monitor continues a folder (resume),
        // and a folder of another matrix's cells is refused (issue 33).
        done.clear();
        QTemporaryDir out2;
        monitor.setPlan(planOfRun(100000, 2));
        monitor.controller()->setOutput(out2.path(), rankBinary());
        monitor.controller()->start();
        QTRY_VERIFY_WITH_TIMEOUT(seen[longCell].join('\n').contains("RUNNING"), 180000);
        QTRY_VERIFY_WITH_TIMEOUT(
            model->cell(longCell) && model->cell(longCell)->ranks.value(1).iteration >= 3, 120000);
        const QString running = seen[longCell].last();
        const QString longJob = running.section(' ', 2, 2);
        QVERIFY2(running.startsWith("RUNNING job ") && !longJob.isEmpty(), qPrintable(running));
        QCOMPARE(slurm_.jobField(longJob, "JobState"), QString("RUNNING"));
        QPushButton* stop = stopButton(monitor);
        QVERIFY(stop && stop->isEnabled());
        QTest::mouseClick(stop, Qt::LeftButton);
        QVERIFY(done.count() > 0 || done.wait(180000));
        QVERIFY2(slurm_.jobField(longJob, "JobState").startsWith("CANCELLED"),
                 qPrintable(slurm_.jobField(longJob, "JobState")));
        QVERIFY2(seen[longCell].last().startsWith("CANCELLED job " + longJob),
                 qPrintable(seen[longCell].join(" | ")));
        QCOMPARE(model->cell(longCell)->state, runner::CellState::Stopped);
        const QStringList left = processesNaming(out2.path());
        QVERIFY2(left.isEmpty(), qPrintable(left.join('\n')));
    }

private:
    static QPushButton* stopButton(widgets::RunMonitor& monitor) {
        for (QPushButton* b : monitor.findChildren<QPushButton*>()) {
            if (b->text() == "Stop") {
                return b;
            }
        }
        return nullptr;
    }
};

QTEST_MAIN(TstGuiSlurm)
#include "tst_gui_slurm.moc"
