// The matrix designer, offscreen: editing world sizes changes the cells and the bars, a YAML
// typo is marked at its line, and the last good plan stays on screen.

#include "feasibility_bars.h"
#include "image_checks.h"
#include "matrix_designer.h"
#include "models/cell_table_model.h"

#include <QAbstractItemModelTester>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTest>
#include <QTextCursor>

using namespace commprof;

class TstGuiDesigner : public QObject {
    Q_OBJECT
private slots:
    void editingWorldSizesReplansAndTyposAreMarked() {
        widgets::MatrixDesigner designer;
        QAbstractItemModelTester tester(designer.cells(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        designer.setBudgets(8.0, std::nullopt, 0);
        designer.loadFile(COMMPROF_SOURCE_DIR "/configs/experiments/smoke.yaml");
        QCOMPARE(designer.cells()->rowCount(), 2);
        QCOMPARE(designer.worldSizes()->count(), 2);
        const double before = designer.bars()->estimate().host.total();
        QVERIFY(before > 0);

        // Type a larger world size: after the debounce, three cells and a bigger worst cell.
        QSignalSpy replanned(&designer, &widgets::MatrixDesigner::planChanged);
        QString text = designer.editor()->toPlainText();
        text.replace("world_sizes: [1, 2]", "world_sizes: [1, 2, 8]");
        designer.editor()->setPlainText(text);
        QVERIFY(replanned.wait(widgets::MatrixDesigner::kDebounceMs * 10));
        QCOMPARE(designer.cells()->rowCount(), 3);
        QCOMPARE(designer.worldSizes()->count(), 3);
        const double after = designer.bars()->estimate().host.total();
        QVERIFY2(std::abs(after / before - 4.0) < 1e-9,
                 qPrintable(QString::number(after / before))); // ws8 vs ws2
        QCOMPARE(designer.bars()->estimate().host.budgetBytes, 8.0 * 1024 * 1024 * 1024);

        // A typo, typed as a user would (one character deleted): marked at its line, and the
        // cells stay as they were.
        text = designer.editor()->toPlainText();
        const int line = text.left(text.indexOf("world_sizes")).count('\n') + 1;
        QTextCursor cursor(designer.editor()->document());
        cursor.setPosition(int(text.indexOf("world_sizes:") + QString("world_size").size()));
        cursor.deleteChar();
        QTRY_COMPARE_WITH_TIMEOUT(designer.errorLine(), line,
                                  widgets::MatrixDesigner::kDebounceMs * 10);
        QVERIFY(designer.errorText().contains("did you mean 'world_sizes'"));
        QCOMPARE(designer.errorColumn(), 1); // the key starts the line
        QCOMPARE(designer.cells()->rowCount(), 3);

        // Undo brings the matrix back.
        designer.editor()->undo();
        designer.replanNow();
        QCOMPARE(designer.errorLine(), 0);

        designer.resize(1100, 800);
        designer.show();
        QVERIFY(QTest::qWaitForWindowExposed(&designer));
        QVERIFY(distinctColours(designer.bars()->grab().toImage()) > 5);
    }

    void infeasibleCellsStayWithTheirNumbers() {
        widgets::MatrixDesigner designer;
        designer.setBudgets(0.3, std::nullopt, 0); // ws1 needs about 0.19 GiB, ws2 about 0.38
        designer.loadFile(COMMPROF_SOURCE_DIR "/configs/experiments/smoke.yaml");
        QCOMPARE(designer.cells()->rowCount(), 2);
        const auto& worst = designer.bars()->estimate();
        QVERIFY(!worst.feasible);
        QVERIFY(worst.reason.contains("host demand"));
        QCOMPARE(designer.cells()
                     ->data(designer.cells()->index(1, models::CellTableModel::Feasible))
                     .toString(),
                 QString("skipped_infeasible"));
    }
};

QTEST_MAIN(TstGuiDesigner)
#include "tst_gui_designer.moc"
