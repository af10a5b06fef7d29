// SPDX-License-Identifier: GPL-3.0-or-later
// Journey: one workspace per task. Every workspace fits a 1366x768 screen with all its panes
// and controls inside the window (measured on the widgets' geometry, and on the real program's
// --screenshot pictures); at 1920x1080 the Inspect workspace gives the timeline most of the
// window; each workspace keeps its own layout across a restart; switching keeps the selected
// cell; a hidden pane is listed in View and comes back from there.

#include "cell_inspector_panel.h"
#include "gui_helpers.h"
#include "main_window.h"
#include "matrix_designer.h"
#include "results_view.h"
#include "step_table_view.h"
#include "timeline_search_bar.h"
#include "timeline_view.h"
#include "trace_inspector.h"
#include "workspaces.h"

#include <qcustomplot.h>

#include <QAbstractButton>
#include <QAction>
#include <QComboBox>
#include <QHeaderView>
#include <QImage>
#include <QLineEdit>
#include <QMenu>
#include <QScrollArea>
#include <QSignalSpy>
#include <QSplitter>
#include <QTabBar>
#include <QTableView>
#include <QTest>

using namespace commprof;

namespace {

QAction* viewAction(const workbench::MainWindow& w, const QString& title) {
    for (QAction* a : w.viewMenu()->actions()) {
        if (a->text().remove('&') == title) {
            return a;
        }
    }
    return nullptr;
}

int rowsShown(const QTableView* t) {
    return t->viewport()->height() / std::max(1, t->verticalHeader()->defaultSectionSize());
}

bool insideScrolledContent(const QWidget* w, const QWidget* top) {
    for (const QWidget* p = w->parentWidget(); p && p != top; p = p->parentWidget()) {
        if (qobject_cast<const QScrollArea*>(p)) {
            return true;
        }
    }
    return false;
}

// Every control, table and plot the page shows, with its box in window coordinates where that
// box is not inside the window or has no room (a squeezed button, a plot of no height).
QStringList outsideOrSqueezed(const QWidget& window, QWidget* page) {
    QStringList bad;
    const QRect inside = window.rect();
    QList<QWidget*> shown;
    for (QWidget* c : page->findChildren<QWidget*>()) {
        if (!c->isVisibleTo(&window) || insideScrolledContent(c, page)) {
            continue;
        }
        if (qobject_cast<QAbstractButton*>(c) || qobject_cast<QComboBox*>(c) ||
            qobject_cast<QLineEdit*>(c) || qobject_cast<QTableView*>(c) ||
            qobject_cast<QCustomPlot*>(c) || qobject_cast<widgets::TimelineView*>(c)) {
            shown << c;
        }
    }
    for (QWidget* c : shown) {
        // Header buttons and the like inside item views scroll with them.
        if (qobject_cast<QAbstractItemView*>(c->parentWidget()) ||
            qobject_cast<QHeaderView*>(c->parentWidget())) {
            continue;
        }
        const QRect box(c->mapTo(&window, QPoint(0, 0)), c->size());
        const QSize least = c->minimumSizeHint();
        const bool squeezed = (qobject_cast<QAbstractButton*>(c) &&
                               (box.width() < least.width() || box.height() < least.height())) ||
                              box.width() < 16 || box.height() < 12;
        if (!inside.contains(box) || squeezed) {
            bad << QString("%1 %2 at %3,%4 %5x%6 (needs %7x%8)")
                       .arg(c->metaObject()->className(), c->objectName())
                       .arg(box.x())
                       .arg(box.y())
                       .arg(box.width())
                       .arg(box.height())
                       .arg(least.width())
                       .arg(least.height());
        }
    }
    return bad;
}

} // namespace

class TstGuiWorkspaces : public QObject {
    Q_OBJECT
    SmokeRun smoke_;

private slots:
    void initTestCase() {
        const QString error = smoke_.make();
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }
    void init() { isolateSettings(); }

    void everyWorkspaceFitsExactly1366x768() {
        workbench::MainWindow w;
        const QSize least = w.minimumSizeHint().expandedTo(w.minimumSize());
        QVERIFY2(
            least.width() <= 1366 && least.height() <= 768,
            qPrintable(QString("needs at least %1x%2").arg(least.width()).arg(least.height())));
        w.resize(1366, 768);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.openResults(smoke_.dir);
        QSignalSpy opened(&w, &workbench::MainWindow::resultsOpened);
        QVERIFY(opened.wait(60000));
        widgets::Workspaces* ws = w.workspaces();
        QCOMPARE(ws->names(),
                 QStringList({"design", "run", "inspect", "whatif", "results", "probe"}));
        for (const QString& name : ws->names()) {
            ws->setCurrent(name);
            QTest::qWait(50);
            QCOMPARE(ws->current(), name);
            QCOMPARE(w.size(), QSize(1366, 768));
            const QStringList bad = outsideOrSqueezed(w, ws->page(name));
            QVERIFY2(bad.isEmpty(), qPrintable(name + ": " + bad.join("; ")));
        }
        ws->setCurrent("results");
        QTest::qWait(50);
        QVERIFY(rowsShown(w.results()->table()) >= 3);
        QVERIFY(w.inspector()->isVisible());
        ws->setCurrent("design");
        QTest::qWait(50);
        QVERIFY(rowsShown(w.designer()->cellTable()) >= 4);
    }

    void inspectGivesTheTimelineMostOf1920x1080() {
        workbench::MainWindow w;
        w.resize(1920, 1080);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.workspaces()->setCurrent("inspect");
        QTest::qWait(100); // the default proportions are applied once the page is shown
        const QSize t = w.timeline()->size();
        QVERIFY2(t.width() >= 1500 && t.height() >= 650,
                 qPrintable(QString("%1x%2").arg(t.width()).arg(t.height())));
        // The step table below still has rows to show.
        QVERIFY(w.stepTable()->isVisible());
        QVERIFY(w.stepTable()->height() >= 120);
        w.workspaces()->setCurrent("design");
        QTest::qWait(100);
        QVERIFY(rowsShown(w.designer()->cellTable()) >= 10);
    }

    void eachWorkspaceRemembersItsOwnLayout() {
        QList<int> resultsSizes;
        QList<int> designSizes;
        {
            workbench::MainWindow w;
            w.resize(1600, 900);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            w.workspaces()->setCurrent("inspect");
            QTest::qWait(50);
            QAction* lower = viewAction(w, "Step table and details");
            QVERIFY(lower);
            lower->trigger(); // hidden
            QVERIFY(!w.traceInspector()->lowerPane()->isVisible());
            w.workspaces()->setCurrent("results");
            QTest::qWait(50);
            auto* split = qobject_cast<QSplitter*>(w.workspaces()->page("results"));
            QVERIFY(split);
            split->setSizes({1000, 600});
            resultsSizes = split->sizes();
            w.workspaces()->setCurrent("design");
            QTest::qWait(50);
            designSizes = w.workspaces()->page("design")->findChild<QSplitter*>()->sizes();
            QVERIFY(w.close());
        }
        workbench::MainWindow again;
        again.resize(1600, 900);
        again.show();
        QVERIFY(QTest::qWaitForWindowExposed(&again));
        QCOMPARE(again.workspaces()->current(), QString("design")); // where the user left
        QTest::qWait(50);
        QCOMPARE(again.workspaces()->page("design")->findChild<QSplitter*>()->sizes(), designSizes);
        again.workspaces()->setCurrent("results");
        QTest::qWait(50);
        QCOMPARE(qobject_cast<QSplitter*>(again.workspaces()->page("results"))->sizes(),
                 resultsSizes);
        again.workspaces()->setCurrent("inspect");
        QTest::qWait(50);
        QVERIFY(!again.traceInspector()->lowerPane()->isVisible()); // still hidden there...
        QAction* lower = viewAction(again, "Step table and details");
        QVERIFY(lower && !lower->isChecked()); // ...and View still offers it
        lower->trigger();
        QVERIFY(again.traceInspector()->lowerPane()->isVisible());
        // Reset puts the current workspace's panes back.
        lower->trigger();
        QAction* reset = viewAction(again, "Reset layout");
        QVERIFY(reset);
        reset->trigger();
        QVERIFY(again.traceInspector()->lowerPane()->isVisible());
        QVERIFY(lower->isChecked());
    }

    void switchingWorkspacesKeepsTheSelectedCell() {
        workbench::MainWindow w;
        w.resize(1366, 768);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSignalSpy opened(&w, &workbench::MainWindow::resultsOpened);
        w.openResults(smoke_.dir);
        QVERIFY(opened.wait(60000));
        QCOMPARE(w.workspaces()->current(), QString("results"));
        const QString id = "mlp2m_gloo_cpu_ws2_r0";
        QSignalSpy shown(&w, &workbench::MainWindow::traceShown);
        w.selectResultsCell(id);
        QVERIFY(shown.wait(60000));
        for (const char* name : {"inspect", "design", "run", "probe", "results", "inspect"}) {
            w.workspaces()->setCurrent(name);
            QTest::qWait(20);
            QCOMPARE(w.results()->selectedCell(), id);
            QVERIFY2(w.currentTrace().contains(id), qPrintable(w.currentTrace()));
        }
        QCOMPARE(w.traceInspector()->stack()->ranks.size(), std::size_t(2));

        // Ctrl+F wherever the focus is, while the timeline is shown (issue 29 item 15).
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        w.workspaces()->tabBar()->setFocus();
        QTest::keySequence(&w, QKeySequence::Find);
        QTRY_VERIFY(w.traceInspector()->searchBar()->edit()->hasFocus());

        // A trace opened on its own is no cell of the results: no cell stays selected beside
        // it (item 16).
        const QString file = smoke_.dir + "/cells/" + id + "/trace_rank0.json.gz";
        QSignalSpy again(&w, &workbench::MainWindow::traceShown);
        w.workspaces()->setCurrent("results");
        w.openTrace(file);
        QVERIFY(again.wait(60000));
        QCOMPARE(w.workspaces()->current(), QString("inspect"));
        QCOMPARE(w.results()->selectedCell(), QString());
        QCOMPARE(w.currentTrace(), file);
        QCOMPARE(w.traceInspector()->stack()->ranks.size(), std::size_t(1));
    }

    // The real program, as docs/images/make_screenshots.sh runs it: every picture of the
    // window, one per workspace, is exactly the size asked for.
    void screenshotsOfEveryWorkspaceAreTheSizeAskedFor() {
        QTemporaryDir out;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("QT_QPA_PLATFORM", "offscreen");
        env.insert("XDG_CONFIG_HOME", out.filePath("config"));
        const CliResult r = runCli(
            "commprof-workbench",
            {"--size", "1366x768", "--results", smoke_.dir, "--screenshot", out.filePath("shots")},
            300000, env);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        for (const char* name : {"workbench", "workbench_design", "workbench_run",
                                 "workbench_inspect", "workbench_results", "workbench_probe"}) {
            const QImage shot(out.filePath(QString("shots/%1.png").arg(name)));
            QVERIFY2(!shot.isNull(), name);
            QCOMPARE(shot.size(), QSize(1366, 768));
        }
    }
};

QTEST_MAIN(TstGuiWorkspaces)
#include "tst_gui_workspaces.moc"
