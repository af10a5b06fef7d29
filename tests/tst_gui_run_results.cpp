// SPDX-License-Identifier: GPL-3.0-or-later
// Journey: a run started from the window, with real ranks, ends with its results shown: the
// output folder was shown before the start, and when the run ends the window opens it.

#include "gui_helpers.h"
#include "main_window.h"
#include "matrix_designer.h"
#include "models/results_cell_model.h"
#include "models/run_controller.h"
#include "models/run_state_model.h"
#include "rank_files.h"
#include "results_view.h"
#include "run_monitor.h"
#include "workspaces.h"

#include <QDir>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace commprof;

namespace {

// The window at 1366x768 with the two-cell matrix planned and OUT as the run's folder.
bool showTwoCellMatrix(workbench::MainWindow& w, const QString& out) {
    w.resize(1366, 768);
    w.show();
    if (!QTest::qWaitForWindowExposed(&w)) {
        return false;
    }
    QSignalSpy planned(w.designer(), &widgets::MatrixDesigner::planChanged);
    if (!w.openMatrix(COMMPROF_TEST_DATA "/two_ddp_cells.yaml") || !planned.wait(60000)) {
        return false;
    }
    w.setRunOutput(out);
    return true;
}

} // namespace

class TstGuiRunResults : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { isolateSettings(); }

    void aRunEndsWithItsResultsShown() {
        QTemporaryDir work;
        const QString out = QDir(work.path()).filePath("gui_run");
        workbench::MainWindow w;
        QVERIFY(showTwoCellMatrix(w, out));
        QCOMPARE(w.monitor()->controller()->outputDir(), out); // shown before the run starts
        QSignalSpy opened(&w, &workbench::MainWindow::resultsOpened);
        w.startRun();
        QVERIFY(w.monitor()->controller()->running());
        QVERIFY(opened.wait(400000));
        QCOMPARE(opened.first().at(0).toString(), out);
        QCOMPARE(w.resultsDir(), out);
        QCOMPARE(w.results()->model()->rowCount(), 2);
        QVERIFY(!w.results()->selectedCell().isEmpty());
        QVERIFY(QFile::exists(QDir(out).filePath("results.sqlite")));
        QVERIFY(w.windowTitle().contains(QDir::toNativeSeparators(out)));
        // Opening the results re-plans the run's matrix in the designer: the monitor still
        // shows how the run ended, not two pending cells.
        QTest::qWait(1000);
        const auto* states = w.monitor()->model();
        for (int row = 0; row < states->rowCount(); ++row) {
            const QString state =
                states->index(row, models::RunStateModel::State).data().toString();
            QVERIFY2(state.startsWith("complete"), qPrintable(state));
        }
    }

    // Issue 52: Stop jumped to Results. The monitor stays in view, Resume beside the log
    // that says what stopped; the results are opened under Results all the same.
    void aStopLeavesTheMonitorInView() {
        QTemporaryDir work;
        const QString out = QDir(work.path()).filePath("stopped");
        workbench::MainWindow w;
        QVERIFY(showTwoCellMatrix(w, out));
        QSignalSpy opened(&w, &workbench::MainWindow::resultsOpened);
        w.startRun();
        QTRY_VERIFY_WITH_TIMEOUT(w.monitor()->logText().contains("launching"), 120000);
        w.monitor()->controller()->stop();
        QVERIFY(opened.wait(120000));
        QCOMPARE(opened.first().at(0).toString(), out);
        QCOMPARE(w.resultsDir(), out);
        QCOMPARE(w.workspaces()->current(), QString("run"));
        QCOMPARE(w.monitor()->startButton()->text(), QString("Resume"));
        // The monitor in view after Stop (and after the results, opened, re-planned its
        // matrix): each column sized to its text is as wide as its widest text, none collapsed.
        QTest::qWait(1000);
        QTableView* states = w.monitor()->table();
        for (const int column : {models::RunStateModel::Cell, models::RunStateModel::State,
                                 models::RunStateModel::Elapsed, models::RunStateModel::Ranks}) {
            int widest = 0;
            for (int row = 0; row < states->model()->rowCount(); ++row) {
                widest =
                    std::max(widest, states->fontMetrics().horizontalAdvance(
                                         states->model()->index(row, column).data().toString()));
            }
            QVERIFY2(states->columnWidth(column) >= widest,
                     qPrintable(QString("monitor column %1: %2 px, its text %3 px")
                                    .arg(column)
                                    .arg(states->columnWidth(column))
                                    .arg(widest)));
        }
        // A click away, the table's columns are sized to their text: filled while hidden,
        // they were sized to their headers ("cell" for ids of 30 characters).
        w.workspaces()->setCurrent("results");
        QTest::qWait(50);
        QTableView* table = w.results()->table();
        const auto* model = table->model();
        QVERIFY(model->rowCount() > 0);
        int longest = 0;
        for (int row = 0; row < model->rowCount(); ++row) {
            longest = std::max(longest, table->fontMetrics().horizontalAdvance(
                                            model->index(row, 0).data().toString()));
        }
        QVERIFY2(table->columnWidth(0) >= longest,
                 qPrintable(QString("cell column %1 px, its longest id %2 px")
                                .arg(table->columnWidth(0))
                                .arg(longest)));
    }

    void aFolderOfOtherFilesIsNotRunInto() {
        QTemporaryDir work;
        QVERIFY(writeFile(work.filePath("notes.txt"), "mine\n"));
        workbench::MainWindow w;
        QSignalSpy planned(w.designer(), &widgets::MatrixDesigner::planChanged);
        QVERIFY(w.openMatrix(COMMPROF_TEST_DATA "/two_ddp_cells.yaml"));
        QVERIFY(planned.wait(60000));
        w.setRunOutput(work.path());
        DialogAnswer answer(QMessageBox::Ok);
        w.startRun();
        QVERIFY(answer.seen());
        QVERIFY(answer.text().contains("already holds other files"));
        QVERIFY(!w.monitor()->controller()->running());
        QCOMPARE(QDir(work.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot),
                 QStringList{"notes.txt"});
    }

    // Issue 29 item 10: a finished folder opened in a new window lists its cells in the run
    // monitor as the runner recorded them (cell.json's status), with their count, not pending.
    void anOpenedFolderShowsItsRecordedStates() {
        QTemporaryDir work;
        const QString out = QDir(work.path()).filePath("done");
        const QString matrix = work.filePath("mixed.yaml");
        // A 2e9-parameter model fits no 4 GiB host budget (30 GiB at ws1): skipped_infeasible.
        QVERIFY(writeFile(matrix, "name: mixed\ndefaults: {iterations: 4, warmup: 1, batch_size: "
                                  "8, timeout_s: 120}\nbudget: {host_gib: 4}\nmodels: [{name: "
                                  "tiny, params: 2e5}, {name: big, params: 2e9}]\nlayers: [{name: "
                                  "gloo_cpu}]\nworld_sizes: [1, 2]\n"));
        const CliResult run = runCli("commprof", {"run", matrix, "--out", out}, 300000);
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QMap<QString, QString> recorded; // what the runner wrote, by cell
        for (const QString& id :
             QDir(out + "/cells").entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
            recorded[id] = readJsonFile(out + "/cells/" + id + "/cell.json")["status"].toString();
        }
        QCOMPARE(recorded.size(), 4);
        QCOMPARE(recorded.values().count("complete"), 2);
        QCOMPARE(recorded.values().count("skipped_infeasible"), 2);

        workbench::MainWindow w;
        w.resize(1366, 768);
        w.show();
        QSignalSpy opened(&w, &workbench::MainWindow::resultsOpened);
        QSignalSpy planned(w.designer(), &widgets::MatrixDesigner::planChanged);
        w.openResults(out);
        QVERIFY(opened.wait(60000));
        QVERIFY(planned.count() > 0 || planned.wait(60000));
        w.workspaces()->setCurrent("run");
        const auto* states = w.monitor()->model();
        QTRY_COMPARE(states->rowCount(), 4);
        for (auto it = recorded.begin(); it != recorded.end(); ++it) {
            const int row = states->rowOf(it.key());
            QVERIFY2(row >= 0, qPrintable(it.key()));
            QCOMPARE(states->index(row, models::RunStateModel::State).data().toString(),
                     it.value());
        }
        QCOMPARE(w.monitor()->overallProgress()->value(), 4);
        QCOMPARE(w.monitor()->overallProgress()->text(), QString("4 of 4 cells"));
        QCOMPARE(w.monitor()->findChild<QLabel*>("eta")->text(),
                 QString("4 cells: 2 complete, 2 skipped_infeasible"));
    }
};

QTEST_MAIN(TstGuiRunResults)
#include "tst_gui_run_results.moc"
