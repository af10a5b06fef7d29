// SPDX-License-Identifier: GPL-3.0-or-later
// Journey: open a results folder. A real smoke run is opened in the real main window; a cell
// is selected (the one where communication costs most, by the CLI's own figures), and every
// panel has content: the plots, the table, the inspector, the timeline and the step table,
// and the designer shows the matrix the run was made from.

#include "cell_inspector_panel.h"
#include "code_editor.h"
#include "gui_helpers.h"
#include "jobs/job_tracker.h"
#include "main_window.h"
#include "matrix_designer.h"
#include "message_bar.h"
#include "models/cell_figures_model.h"
#include "models/results_cell_model.h"
#include "models/run_controller.h"
#include "models/run_state_model.h"
#include "models/step_table_model.h"
#include "rank_files.h"
#include "result_plots.h"
#include "results_view.h"
#include "run_helpers.h"
#include "run_monitor.h"
#include "workspaces.h"

#include <qcustomplot.h>

#include <QAction>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QLabel>
#include <QMenu>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace commprof;

class TstGuiOpenResults : public QObject {
    Q_OBJECT
    SmokeRun smoke_;
    QString run_;

private slots:
    void initTestCase() {
        const QString error = smoke_.make();
        QVERIFY2(error.isEmpty(), qPrintable(error));
        run_ = smoke_.dir;
    }

    // Two suites at once (ctest -j) once shared Qt's test-mode settings, and one's recent results
    // reached the other's window: this suite's settings are a folder no other process uses.
    void settingsAreThisSuitesOwn() {
        const QString file = QSettings("commprof", "workbench").fileName();
        const QString shared = QStandardPaths::writableLocation(QStandardPaths::ConfigLocation);
        QVERIFY2(!file.startsWith(shared + "/"),
                 qPrintable(file + " is in the folder every suite shares: " + shared));
        QVERIFY2(!file.startsWith(QDir::homePath() + "/"), qPrintable(file));
    }

    void aCellIsSelectedAndEveryPanelHasContent() {
        // The CLI's own figures: the cell the window should open on, by hand.
        const CliResult cells = runCli("commprof", {"cells", run_, "--json"});
        QCOMPARE(cells.exitCode, 0);
        QString worst;
        double worstFraction = -1;
        const QJsonArray rows = cells.json()["cells"].toArray();
        for (const auto& v : rows) {
            const QJsonObject c = v.toObject();
            if (c["status"].toString() == "complete" &&
                c["comm_overhead_fraction"].toDouble() > worstFraction) {
                worstFraction = c["comm_overhead_fraction"].toDouble();
                worst = c["id"].toString();
            }
        }
        QVERIFY(!worst.isEmpty());

        workbench::MainWindow w;
        w.resize(1920, 1080);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSignalSpy opened(&w, &workbench::MainWindow::resultsOpened);
        QSignalSpy traced(&w, &workbench::MainWindow::traceShown);
        w.openResults(run_);
        QVERIFY(opened.wait(120000));
        QVERIFY(traced.count() > 0 || traced.wait(60000));

        QCOMPARE(w.results()->selectedCell(), worst);
        QCOMPARE(w.results()->model()->rowCount(), int(rows.size()));
        for (const QString& figure : widgets::ResultsView::shownFigures()) {
            const auto& cells = w.results()->data().cells;
            if (figure == "sweep_bandwidth" &&
                std::none_of(cells.begin(), cells.end(),
                             [](const store::CellRow& c) { return c.isSweep(); })) {
                // No sweep cell in the run: no sweep page (tst_gui_results checks the figure).
                continue;
            }
            if (!widgets::figureNamed(figure)->appliesTo(w.results()->data())) {
                continue; // no cap study in the run: no tuning page (tst_tuning_study draws it)
            }
            QCustomPlot* plot = w.results()->plot(figure.toLatin1().constData());
            int points = 0;
            for (int i = 0; i < plot->plottableCount(); ++i) {
                points += plot->plottable(i)->interface1D()
                              ? plot->plottable(i)->interface1D()->dataCount()
                              : 0;
            }
            QVERIFY2(points > 0, qPrintable(figure));
        }
        QVERIFY(w.inspector()->findChild<QLabel*>("headline")->text().contains(worst));
        QVERIFY(w.inspector()->figures()->rowOf("backend / hook, same steps") >= 0);
        QCOMPARE(
            w.currentTrace(),
            QDir(QDir(run_).absolutePath()).filePath("cells/" + worst + "/trace_rank0.json.gz"));
        // The step table holds the trace's steps (the CLI's count) plus a totals row.
        const CliResult steps =
            runCli("commprof", {"trace", "summarize", w.currentTrace(), "--json"});
        QCOMPARE(w.steps()->rowCount(), steps.json()["steps"].toArray().size() + 1);
        // The designer shows the matrix the run recorded, as the file it came from.
        QFile runJson(QDir(run_).filePath("run.json"));
        QVERIFY(runJson.open(QIODevice::ReadOnly));
        const QString asRun = QJsonDocument::fromJson(runJson.readAll())["matrix_yaml"].toString();
        QVERIFY(!asRun.isEmpty());
        QCOMPARE(w.designer()->editor()->toPlainText(), asRun);
        QVERIFY(!w.designer()->isModified());
        QVERIFY(w.windowTitle().contains(QDir::toNativeSeparators(QDir(run_).absolutePath())));
        QCOMPARE(w.recentResults().value(0), QDir(run_).absolutePath());
        QCOMPARE(w.messages()->count(), 0);
    }

    // A matrix the user opened stays in the designer (F5 would otherwise start the results'
    // study); the menu action puts the results' matrix there on request.
    void theUsersMatrixStaysInTheDesigner() {
        workbench::MainWindow w;
        const QString mine = COMMPROF_SOURCE_DIR "/configs/experiments/links.yaml";
        QVERIFY(w.openMatrix(mine));
        QFile file(mine);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString mineText = QString::fromUtf8(file.readAll());
        QSignalSpy opened(&w, &workbench::MainWindow::resultsOpened);
        w.openResults(run_);
        QVERIFY(opened.wait(120000));
        QCOMPARE(w.designer()->editor()->toPlainText(), mineText);
        QCOMPARE(w.designer()->fileName(), QFileInfo(mine).absoluteFilePath());
        QCOMPARE(w.messages()->count(), 1);
        QVERIFY(w.showResultsMatrixAction()->isEnabled());
        QFile runJson(QDir(run_).filePath("run.json"));
        QVERIFY(runJson.open(QIODevice::ReadOnly));
        const QString asRun = QJsonDocument::fromJson(runJson.readAll())["matrix_yaml"].toString();
        w.showResultsMatrixAction()->trigger();
        QCOMPARE(w.designer()->editor()->toPlainText(), asRun);
    }

    void reloadingKeepsTheSelectedCell() {
        workbench::MainWindow w;
        QSignalSpy opened(&w, &workbench::MainWindow::resultsOpened);
        w.openResults(run_);
        QVERIFY(opened.wait(120000));
        w.selectResultsCell("mlp2m_gloo_cpu_ws1_r0");
        w.reloadResults();
        QVERIFY(opened.wait(120000));
        QCOMPARE(w.results()->selectedCell(), QString("mlp2m_gloo_cpu_ws1_r0"));
    }

    // Issue 52: the title said "untitled matrix" while only a trace was open; it names the
    // trace, and the matrix again once the user has one.
    void theTitleNamesTheTraceShown() {
        workbench::MainWindow w;
        QSignalSpy shown(&w, &workbench::MainWindow::traceShown);
        const QString trace = run_ + "/cells/mlp2m_gloo_cpu_ws2_r0/trace_rank0.json.gz";
        w.openTrace(trace);
        QVERIFY(shown.wait(60000));
        QVERIFY2(!w.windowTitle().contains("untitled matrix") &&
                     w.windowTitle().startsWith("cell mlp2m_gloo_cpu_ws2_r0 (1 rank)"),
                 qPrintable(w.windowTitle()));
        QVERIFY(w.openMatrix(COMMPROF_SOURCE_DIR "/configs/experiments/smoke.yaml"));
        QVERIFY2(w.windowTitle().startsWith("smoke.yaml"), qPrintable(w.windowTitle()));
    }

    // Issue 52: a recent folder that no longer exists stayed in the list after it failed.
    void aRecentFolderThatIsGoneLeavesTheList() {
        QTemporaryDir tmp;
        const QString gone = tmp.filePath("gone");
        const QString kept = QDir(run_).absolutePath();
        QSettings("commprof", "workbench").setValue("recentResults", QStringList{gone, kept});
        workbench::MainWindow w;
        QMenu* recent = nullptr;
        for (QMenu* m : w.findChildren<QMenu*>()) {
            recent = m->title() == "Open &recent results" ? m : recent;
        }
        QVERIFY(recent);
        QCOMPARE(recent->actions().size(), 2);
        recent->actions().first()->trigger();
        QCOMPARE(w.messages()->count(), 1);
        const QString said = w.messages()->shownMessages().join('\n');
        QVERIFY2(said.contains(QDir::toNativeSeparators(gone)) || said.contains(gone),
                 qPrintable(said));
        QVERIFY2(said.contains("removed from File > Open recent results"), qPrintable(said));
        QCOMPARE(w.recentResults(), QStringList{kept});
        QTRY_COMPARE(recent->actions().size(), 1);
        QCOMPARE(recent->actions().first()->text(), QDir::toNativeSeparators(kept));
    }

    // Issue 52: with a study open, File > Open matrix of another matrix (whose cell ids are
    // the study's) left the run's folder at the study's: the monitor showed the new matrix's
    // cells as complete, and its Start said "run started" into the study before it refused.
    void theRunFolderFollowsTheMatrixOpened() {
        workbench::MainWindow w;
        w.resize(1366, 768);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSignalSpy opened(&w, &workbench::MainWindow::resultsOpened);
        w.openResults(run_);
        QVERIFY(opened.wait(120000));
        const QString study = QDir(run_).absolutePath();
        QCOMPARE(w.monitor()->controller()->outputDir(),
                 study); // the designer shows the study's matrix
        w.workspaces()->setCurrent("run");
        QTRY_VERIFY(w.monitor()->model()->cellsFinished() > 0); // its records, as recorded

        QTemporaryDir tmp;
        const QString other = tmp.filePath("subset.yaml");
        QFile f(other);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("name: smoke_subset\n"
                "defaults: {iterations: 30, warmup: 5, batch_size: 32, timeout_s: 420}\n"
                "models: [{name: mlp2m, family: mlp, params: 2.0e6}]\n"
                "layers: [{name: gloo_cpu, backend: gloo, device: cpu}]\n"
                "world_sizes: [1, 2]\n");
        f.close();
        QVERIFY(w.openMatrix(other));
        QTRY_COMPARE(w.monitor()->controller()->outputDir(),
                     QDir("results").absoluteFilePath("smoke_subset"));
        w.workspaces()->setCurrent("run");
        QTRY_COMPARE(w.monitor()->model()->cellCount(), 2);
        // Both ids are the study's complete cells; none ran for this matrix.
        QVERIFY(QFileInfo::exists(run_ + "/cells/mlp2m_gloo_cpu_ws2_r0/manifest.json"));
        QCOMPARE(w.monitor()->model()->cellsFinished(), 0);

        // The user points it at the study's folder on purpose: its records are still not this
        // matrix's, and Start, from the monitor itself, refuses before saying it started.
        w.setRunOutput(study);
        QCOMPARE(w.monitor()->controller()->outputDir(), study);
        QCOMPARE(w.monitor()->model()->cellsFinished(), 0);
        const QMap<QString, QByteArray> before =
            snapshot(study, {"results.sqlite", "results.sqlite-wal", "results.sqlite-shm"});
        w.monitor()->startButton()->click();
        QTRY_VERIFY(w.monitor()->logText().contains("run refused"));
        QVERIFY2(!w.monitor()->logText().contains("run started"),
                 qPrintable(w.monitor()->logText()));
        QTRY_VERIFY(w.monitor()->messages()->count() > 0);
        QVERIFY(!w.monitor()->controller()->running());
        QCOMPARE(snapshot(study, {"results.sqlite", "results.sqlite-wal", "results.sqlite-shm"}),
                 before);
    }

    // Issue 33: a folder opened while `commprof run` writes into it. The cell read before its
    // manifest came is complete once the folder is opened again (only what changed is read,
    // and that cell changed).
    void aCellFinishedAfterTheOpenIsCompleteWhenReopened() {
        QTemporaryDir tmp;
        const QString dir = tmp.filePath("running");
        QVERIFY(copyDir(run_, dir));
        const QString cell = "mlp2m_gloo_cpu_ws2_r0";
        const QString manifest = dir + "/cells/" + cell + "/manifest.json";
        QVERIFY(QFile::rename(manifest, manifest + ".later"));
        workbench::MainWindow w;
        QSignalSpy opened(&w, &workbench::MainWindow::resultsOpened);
        const auto status = [&] {
            const models::ResultsCellModel* m = w.results()->model();
            return m->data(m->index(m->rowOf(cell), models::ResultsCellModel::Status)).toString();
        };
        w.openResults(dir);
        QVERIFY(opened.wait(120000));
        QVERIFY2(status().endsWith("incomplete"), qPrintable(status()));
        QVERIFY(QFile::rename(manifest + ".later", manifest));
        w.reloadResults();
        QVERIFY(opened.wait(120000));
        QCOMPARE(status(), QString("complete"));
    }
};

QTEST_MAIN(TstGuiOpenResults)
#include "tst_gui_open_results.moc"
