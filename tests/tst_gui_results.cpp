// Results: linked plots and the cell table over a real run plus an incomplete cell, offscreen.

#include "cell_inspector_panel.h"
#include "cli_runner.h"
#include "image_checks.h"
#include "models/cell_figures_model.h"
#include "models/results_cell_model.h"
#include "rank_files.h"
#include "report/report_data.h"
#include "result_plots.h"
#include "results_view.h"
#include "store/ingest.h"

#include <qcustomplot.h>

#include <QAbstractItemModelTester>
#include <QDir>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace commprof;

namespace {

bool hasSelectionMark(QCustomPlot* plot) {
    for (int i = 0; i < plot->graphCount(); ++i) {
        if (plot->graph(i)->name() == "selection" && plot->graph(i)->dataCount() > 0) {
            return true;
        }
    }
    for (int i = 0; i < plot->itemCount(); ++i) {
        if (plot->item(i)->objectName() == "selection") {
            return true;
        }
    }
    return false;
}

} // namespace

class TstGuiResults : public QObject {
    Q_OBJECT
    QTemporaryDir work_;
    report::ReportData data_;

private slots:
    void initTestCase() {
        const QString dir = work_.filePath("run");
        const CliResult r =
            runCli("commprof",
                   {"run", COMMPROF_SOURCE_DIR "/configs/experiments/smoke.yaml", "--out", dir});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(addOomLeftovers(dir));
        store::ingest(dir, store::defaultDbPath(dir));
        store::Database db(store::defaultDbPath(dir));
        data_ = report::loadReportData(db, QDir(dir).canonicalPath());
        QCOMPARE(int(data_.cells.size()), 6); // 2 DDP cells, 3 sweeps, the planted one
    }

    void selectionLinksAcrossPlotsAndTable() {
        widgets::ResultsView view;
        QAbstractItemModelTester tester(view.model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        view.resize(1400, 800);
        view.setData(data_);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QSignalSpy selected(&view, &widgets::ResultsView::cellSelected);

        view.selectCell("mlp2m_gloo_cpu_ws1_r0");
        QCOMPARE(view.selectedCell(), QString("mlp2m_gloo_cpu_ws1_r0"));
        for (const char* fig :
             {"overhead_vs_world_size", "bucket_time_vs_bytes", "time_breakdown"}) {
            QVERIFY2(hasSelectionMark(view.plot(fig)), fig);
        }

        // A click on the ws2 point of the overhead plot selects that cell everywhere.
        QCustomPlot* overhead = view.plot("overhead_vs_world_size");
        const store::CellRow* ws2 = nullptr;
        for (const auto& c : data_.cells) {
            if (c.id == "mlp2m_gloo_cpu_ws2_r0") {
                ws2 = &c;
            }
        }
        QVERIFY(ws2 && ws2->commOverheadFraction);
        const QPoint at(int(overhead->xAxis->coordToPixel(2)),
                        int(overhead->yAxis->coordToPixel(*ws2->commOverheadFraction * 100.0)));
        QTest::mouseClick(overhead, Qt::LeftButton, {}, at);
        QCOMPARE(view.selectedCell(), QString("mlp2m_gloo_cpu_ws2_r0"));
        QCOMPARE(selected.last().at(0).toString(), QString("mlp2m_gloo_cpu_ws2_r0"));

        // A click on the first bar of the breakdown selects the first cell on its axis.
        QCustomPlot* breakdown = view.plot("time_breakdown");
        QTest::mouseClick(
            breakdown, Qt::LeftButton, {},
            QPoint(int(breakdown->xAxis->coordToPixel(1)), int(breakdown->yAxis->coordToPixel(1))));
        QCOMPARE(view.selectedCell(), widgets::axisCells(data_).front()->id);
    }

    void incompleteCellIsFlaggedNotData() {
        widgets::ResultsView view;
        view.setData(data_);
        const int row = view.model()->rowOf("mlp2m_gloo_cpu_ws8_r0");
        QVERIFY(row >= 0);
        const auto* m = view.model();
        QCOMPARE(m->data(m->index(row, 0), models::ResultsCellModel::FlaggedRole).toBool(), true);
        QVERIFY(m->data(m->index(row, models::ResultsCellModel::Status))
                    .toString()
                    .contains("incomplete"));
        QVERIFY(m->data(m->index(row, 0), Qt::ToolTipRole)
                    .toString()
                    .contains("3 rank files, world_size 8"));
        QCOMPARE(m->data(m->index(row, models::ResultsCellModel::StepMs)).toString(), QString("-"));
        // In the plot: a flagged marker at world size 8, not a point of a series.
        QCustomPlot* overhead = view.plot("overhead_vs_world_size");
        bool flagged = false;
        for (int i = 0; i < overhead->itemCount(); ++i) {
            const auto* t = qobject_cast<QCPItemText*>(overhead->item(i));
            if (t && t->objectName() == "flagged") {
                flagged = t->property("cellId").toString() == "mlp2m_gloo_cpu_ws8_r0" &&
                          t->position->key() == 8;
            }
        }
        for (int i = 0; i < overhead->graphCount(); ++i) {
            const QCPGraph* g = overhead->graph(i);
            for (auto it = g->data()->begin(); it != g->data()->end(); ++it) {
                QVERIFY(it->key != 8);
            }
        }
        QVERIFY(flagged);
        // Left out of the fitted line's samples.
        QVERIFY(!data_.bucketsByCell.contains("mlp2m_gloo_cpu_ws8_r0"));
        std::size_t complete = 0;
        for (const auto& c : data_.cells) {
            complete += c.complete() ? data_.bucketsByCell.value(c.id).size() : 0;
        }
        QCOMPARE(data_.byLayer["gloo_cpu"].samples.size(), complete);
    }

    void tableSaysWhichRatiosAreNotJudged() {
        models::ResultsCellModel model;
        model.setCells(data_.cells);
        const auto agreement = [&](const QString& id, int role) {
            return model.index(model.rowOf(id), models::ResultsCellModel::Agreement).data(role);
        };
        // World size 1 moves nothing: its ratio is shown with the reason it was not judged.
        QVERIFY2(
            agreement("mlp2m_gloo_cpu_ws1_r0", Qt::DisplayRole).toString().endsWith("(not judged)"),
            qPrintable(agreement("mlp2m_gloo_cpu_ws1_r0", Qt::DisplayRole).toString()));
        QVERIFY(agreement("mlp2m_gloo_cpu_ws1_r0", Qt::ToolTipRole)
                    .toString()
                    .contains("world size 1"));
        // A judged cell's ratio stands alone, to the store's three decimals.
        const store::CellRow* ws2 = widgets::findCell(data_, "mlp2m_gloo_cpu_ws2_r0");
        const QString shown = agreement("mlp2m_gloo_cpu_ws2_r0", Qt::DisplayRole).toString();
        QCOMPARE(shown, ws2->agreementFlagged
                            ? "⚑ " + QString::number(*ws2->hookTraceAgreement, 'f', 3)
                            : QString::number(*ws2->hookTraceAgreement, 'f', 3));
    }

    void inspectorShowsTheCellsTwoInstruments() {
        widgets::CellInspectorPanel panel;
        panel.showCell(data_, "mlp2m_gloo_cpu_ws2_r0");
        const models::CellFiguresModel* f = panel.figures();
        const int ratioRow = f->rowOf("backend / hook, same steps");
        QVERIFY(ratioRow >= 0);
        const double ratio = f->data(f->index(ratioRow, 1)).toString().toDouble();
        const store::CellRow* cell = widgets::findCell(data_, "mlp2m_gloo_cpu_ws2_r0");
        QVERIFY(std::abs(ratio - *cell->hookTraceAgreement) < 5e-4);
        // The ratio is the quotient of the two figures shown above it (as displayed, to their
        // two decimals), so the three cannot contradict each other.
        const auto msOf = [&](const char* figure) {
            const int row = f->rowOf(figure);
            return row < 0 ? -1.0
                           : f->data(f->index(row, 1)).toString().section(' ', 0, 0).toDouble();
        };
        const double hook = msOf("hook, per compared step");
        const double backend = msOf("backend, per compared step");
        QVERIFY(hook > 0 && backend > 0);
        QVERIFY2(std::abs(backend / hook - ratio) < 0.01 * ratio + 0.01 / hook,
                 qPrintable(QString("%1 / %2 vs %3").arg(backend).arg(hook).arg(ratio)));
        // The verdict follows the number beside it (by hand: within 10 % of 1 or not).
        const QString verdict = f->data(f->index(ratioRow, 2)).toString();
        QCOMPARE(verdict.startsWith("agree within"), std::abs(ratio - 1.0) <= 0.10);
        // Every rank has its own row.
        for (int r = 0; r < cell->worldSize; ++r) {
            QVERIFY2(f->rowOf(QString("rank %1").arg(r)) >= 0, qPrintable(QString::number(r)));
        }
        QCOMPARE(panel.plot()->graph(0)->dataCount(),
                 int(data_.bucketsByCell.value("mlp2m_gloo_cpu_ws2_r0").size()));
        panel.showCell(data_, "mlp2m_gloo_cpu_ws8_r0");
        QCOMPARE(f->data(f->index(0, 1)).toString(), QString("incomplete"));
        QVERIFY(f->data(f->index(0, 2)).toString().contains("3 rank files, world_size 8"));
        QCOMPARE(f->rowOf("backend / hook, same steps"),
                 -1); // an incomplete cell's figures are not shown
        QCOMPARE(panel.plot()->graphCount(), 0);
    }

    void verdictWordsFollowTheRatio() {
        QCOMPARE(models::agreementVerdict(1.05, 0.10), QString("agree within ±10 %"));
        QCOMPARE(models::agreementVerdict(0.9, 0.10), QString("agree within ±10 %"));
        QCOMPARE(models::agreementVerdict(1.23, 0.10),
                 QString("backend 23.0 % above hook (beyond ±10 %)"));
        QCOMPARE(models::agreementVerdict(0.5, 0.10),
                 QString("backend 50.0 % below hook (beyond ±10 %)"));
    }

    void tableSortsNumbersAsNumbersAndFilters() {
        widgets::ResultsView view;
        view.setData(data_);
        QSortFilterProxyModel* sorted = view.sortedModel();
        view.table()->sortByColumn(models::ResultsCellModel::WorldSize, Qt::DescendingOrder);
        QCOMPARE(sorted->data(sorted->index(0, models::ResultsCellModel::WorldSize)).toInt(), 8);
        QCOMPARE(sorted->data(sorted->index(2, models::ResultsCellModel::WorldSize)).toInt(), 1);
        view.filter()->setText("incomplete");
        QCOMPARE(sorted->rowCount(), 1);
        // Selecting a cell the filter hides shows it rather than selecting nothing.
        view.selectCell("mlp2m_gloo_cpu_ws1_r0");
        QCOMPARE(view.selectedCell(), QString("mlp2m_gloo_cpu_ws1_r0"));
        QCOMPARE(sorted->rowCount(), 3);
    }
};

QTEST_MAIN(TstGuiResults)
#include "tst_gui_results.moc"
