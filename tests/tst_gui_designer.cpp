// SPDX-License-Identifier: GPL-3.0-or-later
// The matrix designer, offscreen: editing world sizes changes the cells and the bars, a YAML
// typo is marked at its line (text, gutter) and the last good plan stays on screen; the
// feasibility panel keeps the machine's figure when "auto" is unticked, tells a binding pool
// that is over budget from one that is merely closest, tints infeasible rows, keeps the
// selected row across edits, and says why a pool has no budget.

#include "code_editor.h"
#include "feasibility_bars.h"
#include "image_checks.h"
#include "jobs/job_tracker.h"
#include "matrix_designer.h"
#include "models/cell_table_model.h"

#include "matrix/matrix.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTextCursor>
#include <QTextDocument>

using namespace commprof;

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr int kPlanWaitMs = 30000;

// Waits for the plan that follows a change (after the debounce, off the GUI thread).
bool waitForPlan(widgets::MatrixDesigner& d) {
    QSignalSpy planned(&d, &widgets::MatrixDesigner::planChanged);
    return planned.wait(kPlanWaitMs);
}

int redPixels(const QImage& image) {
    int n = 0;
    for (int y = 0; y < image.height(); ++y) {
        for (int x = 0; x < image.width(); ++x) {
            const QColor c = image.pixelColor(x, y);
            n += c.red() > 150 && c.green() < 80 && c.blue() < 80;
        }
    }
    return n;
}

QString text(const widgets::MatrixDesigner& d) {
    return d.editor()->toPlainText();
}

// A module's description as `commprof model export` writes it, by hand: 1.5M parameters in two
// tensors, all trainable, a 32-token input of a 1000-word vocabulary.
void writeModule(const QString& pt) {
    const QJsonObject description{
        {"format", "commprof-model-description"},
        {"version", 1},
        {"input", QJsonObject{{"tokens", 32}, {"vocab", 1000}}},
        {"target", QJsonObject{{"next_token", true}}},
        {"params_total", 1500000},
        {"params_trainable", 1500000},
        {"parameters", QJsonArray{QJsonObject{{"name", "embed.weight"},
                                              {"shape", QJsonArray{1000, 1000}},
                                              {"requires_grad", true}},
                                  QJsonObject{{"name", "head.weight"},
                                              {"shape", QJsonArray{500, 1000}},
                                              {"requires_grad", true}}}},
        {"activations", QJsonObject{{"bytes_per_sample", 4.0e6}, {"bytes_fixed", 0.0}}}};
    QDir().mkpath(QFileInfo(pt).absolutePath());
    QFile j(pt.left(pt.size() - 3) + ".json");
    QVERIFY(j.open(QIODevice::WriteOnly));
    j.write(QJsonDocument(description).toJson());
    QFile m(pt);
    QVERIFY(m.open(QIODevice::WriteOnly));
    m.write("the plan reads the description, not the module");
}

} // namespace

class TstGuiDesigner : public QObject {
    Q_OBJECT
private slots:
    void editingWorldSizesReplansAndTyposAreMarked() {
        widgets::MatrixDesigner designer;
        QAbstractItemModelTester tester(designer.cells(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        designer.setBudgets(8.0, std::nullopt, 0);
        designer.loadFile(COMMPROF_TEST_DATA "/two_ddp_cells.yaml");
        QTRY_COMPARE_WITH_TIMEOUT(designer.cells()->rowCount(), 2, kPlanWaitMs);
        QCOMPARE(designer.worldSizes()->count(), 2);
        QCOMPARE(designer.summary(), QString("2 cells: 2 feasible, 0 skipped_infeasible"));
        const double before = designer.bars()->estimate().host.total();
        QVERIFY(before > 0);

        // Type a larger world size: after the debounce, three cells and a bigger worst cell.
        QString text = designer.editor()->toPlainText();
        text.replace("world_sizes: [1, 2]", "world_sizes: [1, 2, 8]");
        designer.editor()->setPlainText(text);
        QVERIFY(waitForPlan(designer));
        QCOMPARE(designer.cells()->rowCount(), 3);
        QCOMPARE(designer.worldSizes()->count(), 3);
        QCOMPARE(designer.summary(), QString("3 cells: 3 feasible, 0 skipped_infeasible"));
        const double after = designer.bars()->estimate().host.total();
        QVERIFY2(std::abs(after / before - 4.0) < 1e-9,
                 qPrintable(QString::number(after / before))); // ws8 vs ws2
        QCOMPARE(designer.bars()->estimate().host.budgetBytes, 8.0 * kGiB);

        // A typo, typed as a user would (one character deleted): marked at its line in the
        // text and in the gutter, and the cells stay as they were.
        text = designer.editor()->toPlainText();
        const int line = int(text.left(text.indexOf("world_sizes")).count('\n')) + 1;
        QTextCursor cursor(designer.editor()->document());
        cursor.setPosition(int(text.indexOf("world_sizes:") + QString("world_size").size()));
        cursor.deleteChar();
        QTRY_COMPARE_WITH_TIMEOUT(designer.errorLine(), line, kPlanWaitMs);
        QVERIFY(designer.errorText().contains("did you mean 'world_sizes'"));
        QCOMPARE(designer.errorColumn(), 1); // the key starts the line
        QCOMPARE(designer.editor()->markedLine(), line);
        QCOMPARE(designer.cells()->rowCount(), 3);
        // ...and are said to be the last good plan's (issue 29 item 7), greyed.
        QVERIFY(designer.isStale());
        QCOMPARE(designer.summary(), QString("The matrix has an error; last good plan: 3 cells: "
                                             "3 feasible, 0 skipped_infeasible"));
        QVERIFY(!designer.cellTable()->isEnabled());
        QVERIFY(!designer.worldSizes()->isEnabled());

        // Go to the error: the cursor lands on its line.
        designer.goToError();
        QCOMPARE(designer.editor()->textCursor().blockNumber() + 1, line);

        // Undo brings the matrix back.
        designer.editor()->undo();
        QVERIFY(waitForPlan(designer));
        QCOMPARE(designer.errorLine(), 0);
        QCOMPARE(designer.editor()->markedLine(), 0);
        QVERIFY(!designer.isStale());
        QVERIFY(designer.cellTable()->isEnabled());
        QCOMPARE(designer.summary(), QString("3 cells: 3 feasible, 0 skipped_infeasible"));

        designer.resize(1100, 800);
        designer.show();
        QVERIFY(QTest::qWaitForWindowExposed(&designer));
        QVERIFY(distinctColours(designer.bars()->grab().toImage()) > 5);
        QVERIFY(designer.editor()->gutterWidth() > 10); // line numbers are drawn
    }

    // Issue 29 item 8: a term too narrow for its label is still named, by its tooltip.
    void everyFeasibilityTermIsNamed() {
        widgets::MatrixDesigner designer;
        designer.setBudgets(8.0, std::nullopt, 0);
        designer.loadFile(COMMPROF_TEST_DATA "/two_ddp_cells.yaml");
        QTRY_COMPARE_WITH_TIMEOUT(designer.cells()->rowCount(), 2, kPlanWaitMs);
        widgets::FeasibilityBars* bars = designer.bars();
        bars->resize(320, bars->sizeHint().height());
        const auto segments = bars->segments();
        QCOMPARE(segments.size(), designer.bars()->estimate().host.terms.size());
        bool narrow = false;
        for (std::size_t i = 0; i < segments.size(); ++i) {
            const auto& term = bars->estimate().host.terms[i];
            if (segments[i].box.width() < 1) {
                continue; // a term of no size has no box to point at
            }
            narrow = narrow || (segments[i].box.width() < 60 && segments[i].box.width() > 1);
            const QString tip = bars->termAt(segments[i].box.center());
            QVERIFY2(tip.startsWith(term.name + ": ") && tip.contains("GiB"), qPrintable(tip));
        }
        QVERIFY(narrow); // the case the label cannot cover
        QVERIFY(bars->termAt({1, 1}).isEmpty());
    }

    // Issue 29 item 5: a sweep the budget shrinks says so in the cell table, not only in
    // `commprof plan`. 256 MiB at world size 4 on a 2 GiB host: 4 x 163 MiB of baseline leave
    // room for 3 buffers of at most 116 MiB per rank, so 64 MiB (tst_feasibility's figures).
    void aSweepCappedByTheBudgetSaysSo() {
        widgets::MatrixDesigner designer;
        designer.setBudgets(2.0, std::nullopt, 0);
        designer.setText("name: s\nmodels: [{name: sweep, kind: sweep}]\n"
                         "layers: [{name: gloo_cpu}]\nworld_sizes: [4]\n",
                         {});
        QTRY_COMPARE_WITH_TIMEOUT(designer.cells()->rowCount(), 1, kPlanWaitMs);
        const auto text = [&](int column) {
            return designer.cells()->index(0, column).data().toString();
        };
        QCOMPARE(text(models::CellTableModel::Feasible), QString("yes, sweep to 64 MiB"));
        QVERIFY2(text(models::CellTableModel::Reason)
                     .contains("capped from 256 MiB to 64 MiB to fit the budget"),
                 qPrintable(text(models::CellTableModel::Reason)));
    }

    void anErrorFarDownIsBroughtIntoViewWhenTheFileOpens() {
        widgets::MatrixDesigner designer;
        designer.resize(700, 500);
        designer.show();
        QVERIFY(QTest::qWaitForWindowExposed(&designer));
        QString yaml;
        for (int i = 0; i < 150; ++i) {
            yaml += QString("# comment line %1\n").arg(i);
        }
        yaml += "name: far\nmodels: [{name: m, params: 1e6}]\nlayers: [{name: gloo_cpu}]\n"
                "world_sizez: [1]\n";
        designer.setText(yaml, "far.yaml");
        QTRY_COMPARE_WITH_TIMEOUT(designer.errorLine(), 154, kPlanWaitMs);
        QVERIFY2(designer.editor()->firstVisibleLine() > 100,
                 qPrintable(QString::number(designer.editor()->firstVisibleLine())));
    }

    void infeasibleCellsStayWithTheirNumbersAndAreTinted() {
        widgets::MatrixDesigner designer;
        designer.setBudgets(0.3, std::nullopt, 0); // ws1 needs about 0.19 GiB, ws2 about 0.38
        designer.loadFile(COMMPROF_TEST_DATA "/two_ddp_cells.yaml");
        QVERIFY(waitForPlan(designer));
        QCOMPARE(designer.cells()->rowCount(), 2);
        const auto& worst = designer.bars()->estimate();
        QVERIFY(!worst.feasible);
        QVERIFY(worst.reason.contains("host demand"));
        auto* cells = designer.cells();
        QCOMPARE(cells->data(cells->index(1, models::CellTableModel::Feasible)).toString(),
                 QString("skipped_infeasible"));
        QCOMPARE(cells->data(cells->index(1, 0), models::CellTableModel::InfeasibleRole).toBool(),
                 true);
        QCOMPARE(cells->data(cells->index(0, 0), models::CellTableModel::InfeasibleRole).toBool(),
                 false);
        designer.resize(1100, 800);
        designer.show();
        QVERIFY(QTest::qWaitForWindowExposed(&designer));
        // On screen: the infeasible row is tinted red, the feasible one is not.
        QTableView* table = designer.cellTable();
        table->clearSelection();
        const QImage shot = table->viewport()->grab().toImage();
        const auto tint = [&](int row) {
            const QRect r = table->visualRect(cells->index(row, models::CellTableModel::Layer));
            return shot.pixelColor(r.right() - 3, r.center().y());
        };
        QVERIFY2(tint(1).red() > tint(1).green() + 15, qPrintable(tint(1).name()));
        QVERIFY2(std::abs(tint(0).red() - tint(0).green()) < 10, qPrintable(tint(0).name()));
    }

    // Issue 40: what tells cells apart (the settings a list varies) is a column of its own, and
    // the id, "feasible" and the varying values are shown whole, whatever the first plan held;
    // "why not" takes the width of its text, not the rest of the table.
    void theVaryingAxesAreAColumnAndNothingIsCut() {
        widgets::MatrixDesigner designer;
        designer.setBudgets(0.3, std::nullopt, 0); // the world-size-2 cells do not fit
        designer.resize(1366, 700);
        designer.show();
        QVERIFY(QTest::qWaitForWindowExposed(&designer));
        designer.setText("name: v\nmodels: [{name: m, params: 1e5}]\nlayers: [{name: gloo_cpu}]\n"
                         "world_sizes: [1]\n",
                         "v.yaml");
        QVERIFY(waitForPlan(designer));
        // Issue 52 (audit): four axes that vary, one model's name long, passed the 420 px that
        // capped the column and hid "repeat=N".
        designer.setText("name: v\ndefaults: {bucket_cap_mb: [0.25, 25], hook: [allreduce, "
                         "fp16_compress]}\nmodels: [{name: mlp2m, family: mlp, params: 2.0e6}, "
                         "{name: transformer_with_a_long_name, family: mlp, params: 2.0e6}]\n"
                         "layers: [{name: gloo_cpu}]\nworld_sizes: [1, 2]\nrepeats: 2\n",
                         "v.yaml");
        QTRY_COMPARE_WITH_TIMEOUT(designer.cells()->rowCount(), 32, kPlanWaitMs);
        auto* cells = designer.cells();
        QTableView* table = designer.cellTable();
        QVERIFY(!table->isColumnHidden(models::CellTableModel::Varies));
        QStringList varies;
        bool skipped = false;
        for (int row = 0; row < cells->rowCount(); ++row) {
            varies << cells->data(cells->index(row, models::CellTableModel::Varies)).toString();
            skipped |=
                cells->data(cells->index(row, models::CellTableModel::Feasible)).toString() ==
                "skipped_infeasible";
        }
        QVERIFY(skipped);
        const QString longest = "model=transformer_with_a_long_name bucket_cap_mb=0.25 "
                                "hook=fp16_compress repeat=1";
        QVERIFY2(varies.contains(longest), qPrintable(varies.join('|')));
        QVERIFY(QFontMetrics(table->font()).horizontalAdvance(longest) > 420);
        // Each text fits its column: nothing is elided.
        const QFontMetrics fm(table->font());
        for (const int column : {models::CellTableModel::Id, models::CellTableModel::Varies,
                                 models::CellTableModel::Feasible}) {
            for (int row = 0; row < cells->rowCount(); ++row) {
                const QString text = cells->data(cells->index(row, column)).toString();
                QVERIFY2(
                    fm.horizontalAdvance(text) + 6 <= table->columnWidth(column),
                    qPrintable(QString("'%1' in %2 px").arg(text).arg(table->columnWidth(column))));
            }
        }
        QVERIFY2(table->columnWidth(models::CellTableModel::Reason) <= 420,
                 qPrintable(QString::number(table->columnWidth(models::CellTableModel::Reason))));
    }

    void theBindingPoolOverBudgetIsRedAndMerelyClosestIsNot() {
        widgets::FeasibilityBars bars;
        bars.resize(600, 160);
        feasibility::FootprintEstimate e;
        e.host.pool = feasibility::Pool::Host;
        e.host.used = true;
        e.host.budgetBytes = 4 * kGiB;
        e.host.terms = {{"parameters", feasibility::Pool::Host, 1 * kGiB}};
        e.feasible = true;
        e.binding = feasibility::Pool::Host;
        bars.setEstimate("fits", e);
        QCOMPARE(redPixels(bars.grab().toImage()), 0);
        QVERIFY(bars.caption(e.host).startsWith("1.00 GiB of 4.00 GiB (25 %)"));

        e.host.terms = {{"parameters", feasibility::Pool::Host, 6 * kGiB}};
        e.feasible = false;
        e.reason = "host demand 6.00 GiB > budget 4.00 GiB";
        bars.setEstimate("too big", e);
        QVERIFY(redPixels(bars.grab().toImage()) > 200);

        // A pool with no budget says so, in full.
        feasibility::Demand device;
        device.pool = feasibility::Pool::Device;
        device.used = true;
        device.terms = {{"weights", feasibility::Pool::Device, 0.64 * kGiB}};
        const QString caption = bars.caption(device);
        QCOMPARE(caption, QString("needs 0.64 GiB; no device memory to give (budget 0)"));
        QVERIFY(bars.fontMetrics().horizontalAdvance(caption) < bars.width() - 80);
    }

    void uncheckingAutoKeepsTheMachinesFigure() {
        widgets::MatrixDesigner designer;
        designer.loadFile(COMMPROF_TEST_DATA "/two_ddp_cells.yaml");
        QVERIFY(waitForPlan(designer));
        const double machine = designer.plan()->budget.hostBytes / kGiB;
        QVERIFY(machine > 0.5);
        QCOMPARE(designer.hostBudget()->value(), std::round(machine * 100) / 100);
        designer.hostAuto()->setChecked(false);
        QVERIFY(designer.hostBudget()->isEnabled());
        QVERIFY(waitForPlan(designer));
        // The budget in use is still the machine's figure (to the box's 0.01 GiB), not a default.
        QVERIFY2(
            std::abs(designer.plan()->budget.hostBytes / kGiB - machine) < 0.006,
            qPrintable(
                QString("%1 vs %2").arg(designer.plan()->budget.hostBytes / kGiB).arg(machine)));
        designer.hostBudget()->setValue(0.25);
        QVERIFY(waitForPlan(designer));
        QCOMPARE(designer.plan()->budget.hostBytes, 0.25 * kGiB);
    }

    // Budgets set in the boxes are the matrix's: written to its `budget:` key (one undo step),
    // planned from there, saved with it and read back by a designer that opens the file.
    void budgetsAreWrittenToTheMatrix() {
        QTemporaryDir dir;
        const QString file = dir.filePath("m.yaml");
        QFile::copy(COMMPROF_TEST_DATA "/two_ddp_cells.yaml", file);
        widgets::MatrixDesigner designer;
        designer.loadFile(file);
        QVERIFY(waitForPlan(designer));
        const QString before = text(designer);
        QVERIFY(!before.contains("budget:"));
        designer.hostAuto()->setChecked(false);
        QVERIFY(waitForPlan(designer));
        designer.hostBudget()->setValue(0.5);
        QVERIFY(waitForPlan(designer));
        // By hand: the matrix's figure is what a cell may use plus the default 1 GiB reserve.
        const matrix::Matrix m = matrix::parseMatrix(text(designer).toUtf8(), file);
        QVERIFY2(m.budget.hostGib, qPrintable(text(designer)));
        QCOMPARE(*m.budget.hostGib, 1.5);
        QVERIFY(!m.budget.deviceGib);
        QCOMPARE(designer.plan()->budget.hostBytes, 0.5 * kGiB);
        QVERIFY(designer.plan()->budget.hostSource.startsWith("matrix budget.host_gib"));
        QVERIFY(designer.isModified());
        // Every line the user wrote is still there, in order.
        QCOMPARE(text(designer).left(before.size()), before);

        designer.saveTo(file);
        widgets::MatrixDesigner reopened;
        reopened.loadFile(file);
        QVERIFY(waitForPlan(reopened));
        QVERIFY(!reopened.hostAuto()->isChecked());
        QCOMPARE(reopened.hostBudget()->value(), 0.5);
        QVERIFY(reopened.deviceAuto()->isChecked());

        // Ticking auto again writes auto; undoing steps back through the edits to the original.
        designer.hostAuto()->setChecked(true);
        QVERIFY(waitForPlan(designer));
        QVERIFY(!matrix::parseMatrix(text(designer).toUtf8(), file).budget.hostGib);
        while (designer.editor()->document()->isUndoAvailable()) {
            designer.editor()->undo();
        }
        QCOMPARE(text(designer), before);
    }

    // A module from `commprof model export` added with the designer: an entry at the input its
    // description was measured at, a path relative to the matrix, a name of its own, and cells
    // sized from the description (parameters, gradients, buckets: 1.5M x 4 bytes each, by hand).
    void aTorchScriptModelIsAddedFromItsDescription() {
        QTemporaryDir dir;
        const QString file = dir.filePath("m.yaml");
        QFile::copy(COMMPROF_TEST_DATA "/two_ddp_cells.yaml", file);
        writeModule(dir.filePath("models/mlp2m.pt")); // the same name as the matrix's MLP
        widgets::MatrixDesigner designer;
        designer.setBudgets(8.0, std::nullopt, 0);
        designer.loadFile(file);
        QVERIFY(waitForPlan(designer));
        QVERIFY(designer.addModelButton()->isVisible() || !designer.isVisible());
        designer.addTorchScriptModel(dir.filePath("models/mlp2m.pt"));
        QVERIFY(waitForPlan(designer));
        const matrix::Matrix m = matrix::parseMatrix(text(designer).toUtf8(), file);
        QCOMPARE(int(m.models.size()), 2);
        const matrix::ModelSpec& added = m.models[1];
        QCOMPARE(added.name, QString("mlp2m_2"));
        QVERIFY(text(designer).contains("torchscript: 'models/mlp2m.pt'"));
        QCOMPARE(added.torchscript->tokens, 32);
        QCOMPARE(added.torchscript->vocab, 1000);
        const auto& cells = designer.plan()->cells;
        const auto cell = std::find_if(cells.begin(), cells.end(), [](const auto& pc) {
            return pc.cell.id == "mlp2m_2_gloo_cpu_ws2_r0";
        });
        QVERIFY(cell != cells.end());
        for (const char* term : {"parameters", "gradients", "DDP bucket buffers"}) {
            const auto& terms = cell->estimate.host.terms;
            const auto t = std::find_if(terms.begin(), terms.end(),
                                        [&](const auto& x) { return x.name == term; });
            QVERIFY2(t != terms.end(), term);
            QCOMPARE(t->bytes, 2 * 1.5e6 * 4); // two ranks
            QCOMPARE(t->basis, QString("described"));
        }

        // A .pt without its description: said, naming the file, and the text left alone.
        const QString unchanged = text(designer);
        QSignalSpy failed(&designer, &widgets::MatrixDesigner::editFailed);
        QFile bare(dir.filePath("bare.pt"));
        QVERIFY(bare.open(QIODevice::WriteOnly));
        bare.close();
        designer.addTorchScriptModel(bare.fileName());
        QCOMPARE(failed.count(), 1);
        QVERIFY2(failed[0][0].toString().contains("bare.json"),
                 qPrintable(failed[0][0].toString()));
        QCOMPARE(text(designer), unchanged);
    }

    void theSelectedRowSurvivesEdits() {
        widgets::MatrixDesigner designer;
        designer.setBudgets(8.0, std::nullopt, 0);
        designer.loadFile(COMMPROF_TEST_DATA "/two_ddp_cells.yaml");
        QVERIFY(waitForPlan(designer));
        designer.selectCell("mlp2m_gloo_cpu_ws1_r0");
        QCOMPARE(designer.selectedCell(), QString("mlp2m_gloo_cpu_ws1_r0"));
        QCOMPARE(designer.bars()->cellId(), QString("mlp2m_gloo_cpu_ws1_r0"));
        designer.editor()->appendPlainText("# a comment");
        QVERIFY(waitForPlan(designer));
        QCOMPARE(designer.selectedCell(), QString("mlp2m_gloo_cpu_ws1_r0"));
        QCOMPARE(designer.bars()->cellId(), QString("mlp2m_gloo_cpu_ws1_r0"));
        QVERIFY(designer.isModified());
    }

    void sortAndFilterWorkOnThePlan() {
        widgets::MatrixDesigner designer;
        designer.setBudgets(8.0, std::nullopt, 0);
        designer.setText("name: s\nmodels: [{name: a, params: 1e6}, {name: b, params: 3e6}]\n"
                         "layers: [{name: gloo_cpu}]\nworld_sizes: [4, 1, 2]\n",
                         "s.yaml");
        QVERIFY(waitForPlan(designer));
        auto* cells = designer.cells();
        QAbstractItemModelTester tester(cells,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(cells->rowCount(), 6);
        cells->sort(models::CellTableModel::HostGiB, Qt::DescendingOrder);
        // b at 4 ranks needs the most (3x the parameters of a, 4 ranks): by hand.
        QCOMPARE(cells->data(cells->index(0, 0)).toString(), QString("b_gloo_cpu_ws4_r0"));
        QCOMPARE(cells->data(cells->index(5, 0)).toString(), QString("a_gloo_cpu_ws1_r0"));
        designer.cellFilter()->setText("ws2");
        QCOMPARE(cells->rowCount(), 2);
    }
};

QTEST_MAIN(TstGuiDesigner)
#include "tst_gui_designer.moc"
