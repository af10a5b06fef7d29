// SPDX-License-Identifier: GPL-3.0-or-later
// Journey: a run started from the window, with real ranks, ends with its results shown: the
// output folder was shown before the start, and when the run ends the window opens it.

#include "gui_helpers.h"
#include "main_window.h"
#include "matrix_designer.h"
#include "models/results_cell_model.h"
#include "models/run_state_model.h"
#include "results_view.h"
#include "run_monitor.h"

#include <QDir>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace commprof;

class TstGuiRunResults : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { isolateSettings(); }

    void aRunEndsWithItsResultsShown() {
        QTemporaryDir work;
        const QString out = QDir(work.path()).filePath("gui_run");
        workbench::MainWindow w;
        w.resize(1366, 768);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSignalSpy planned(w.designer(), &widgets::MatrixDesigner::planChanged);
        QVERIFY(w.openMatrix(COMMPROF_TEST_DATA "/two_ddp_cells.yaml"));
        QVERIFY(planned.wait(60000));
        w.setRunOutput(out);
        QCOMPARE(w.monitor()->outputDir(), out); // shown before the run starts
        QSignalSpy opened(&w, &workbench::MainWindow::resultsOpened);
        w.startRun();
        QVERIFY(w.monitor()->running());
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
        QVERIFY(!w.monitor()->running());
        QCOMPARE(QDir(work.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot),
                 QStringList{"notes.txt"});
    }
};

QTEST_MAIN(TstGuiRunResults)
#include "tst_gui_run_results.moc"
