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
#include "models/step_table_model.h"
#include "rank_files.h"
#include "result_plots.h"
#include "results_view.h"

#include <qcustomplot.h>

#include <QAction>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
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
        QVERIFY(w.inspector()->headline().contains(worst));
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
