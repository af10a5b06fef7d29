// SPDX-License-Identifier: GPL-3.0-or-later
// Journey: close every dock, reopen each from View, reset the layout. A layout saved with a
// dock closed still lists it in View. The window fits 1366x768 and, at 1920x1080, the default
// layout shows tables with room for rows.

#include "gui_helpers.h"
#include "main_window.h"
#include "matrix_designer.h"
#include "results_view.h"

#include <QAction>
#include <QDockWidget>
#include <QHeaderView>
#include <QMenu>
#include <QSignalSpy>
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

// Rows a table's viewport has room for.
int rowsShown(const QTableView* t) {
    return t->viewport()->height() / std::max(1, t->verticalHeader()->defaultSectionSize());
}

} // namespace

class TstGuiDocks : public QObject {
    Q_OBJECT
private slots:
    void init() { isolateSettings(); }

    void closeEveryDockReopenFromViewThenReset() {
        workbench::MainWindow w;
        w.resize(1600, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QCOMPARE(w.docks().size(), 6);
        for (QDockWidget* d : w.docks()) {
            d->close();
        }
        QApplication::processEvents();
        for (QDockWidget* d : w.docks()) {
            QVERIFY(!d->isVisible());
        }
        for (QDockWidget* d : w.docks()) {
            QAction* show = viewAction(w, d->windowTitle());
            QVERIFY2(show, qPrintable(d->windowTitle()));
            QVERIFY(!show->isChecked());
            show->trigger();
            QVERIFY2(d->isVisible() || d->isVisibleTo(&w), qPrintable(d->windowTitle()));
        }
        // Float one, close two, then reset: all docked where they belong, all shown.
        w.docks().first()->setFloating(true);
        w.docks()[1]->close();
        w.docks()[4]->close();
        QAction* reset = viewAction(w, "Reset layout");
        QVERIFY(reset);
        reset->trigger();
        QApplication::processEvents();
        for (QDockWidget* d : w.docks()) {
            QVERIFY2(!d->isFloating() && !d->isHidden(), qPrintable(d->windowTitle()));
        }
        QCOMPARE(w.dockWidgetArea(w.findChild<QDockWidget*>("designerDock")),
                 Qt::LeftDockWidgetArea);
        QCOMPARE(w.dockWidgetArea(w.findChild<QDockWidget*>("resultsDock")),
                 Qt::BottomDockWidgetArea);
        QCOMPARE(w.dockWidgetArea(w.findChild<QDockWidget*>("inspectorDock")),
                 Qt::RightDockWidgetArea);
    }

    void aLayoutSavedWithADockClosedStillListsIt() {
        {
            workbench::MainWindow w;
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            w.findChild<QDockWidget*>("resultsDock")->close();
            QVERIFY(w.close());
        }
        workbench::MainWindow again;
        again.show();
        QVERIFY(QTest::qWaitForWindowExposed(&again));
        QDockWidget* results = again.findChild<QDockWidget*>("resultsDock");
        QVERIFY(results->isHidden()); // the saved layout is honoured...
        QAction* show = viewAction(again, "Results");
        QVERIFY(show); // ...and View still offers the dock
        show->trigger();
        QVERIFY(!results->isHidden());
    }

    void fitsA1366x768Screen() {
        workbench::MainWindow w;
        // What the window needs at least must fit a 1366x768 screen less a panel.
        const QSize least = w.minimumSizeHint().expandedTo(w.minimumSize());
        QVERIFY2(least.width() <= 1366 && least.height() <= 768 - 48,
                 qPrintable(QString("%1x%2").arg(least.width()).arg(least.height())));
        w.resize(1366, 768 - 48);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QApplication::processEvents();
        QCOMPARE(w.size(), QSize(1366, 768 - 48));
        QVERIFY(rowsShown(w.results()->table()) >= 3);
        QVERIFY(rowsShown(w.designer()->cellTable()) >= 4);
    }

    void usesA1920x1080ScreenWell() {
        workbench::MainWindow w;
        w.resize(1920, 1080 - 48);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QTest::qWait(100); // the default proportions are applied once the window is shown
        const int results = rowsShown(w.results()->table());
        const int cells = rowsShown(w.designer()->cellTable());
        QVERIFY2(results >= 6, qPrintable(QString::number(results)));
        QVERIFY2(cells >= 10, qPrintable(QString::number(cells)));
    }
};

QTEST_MAIN(TstGuiDocks)
#include "tst_gui_docks.moc"
