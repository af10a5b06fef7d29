// Results: linked plots and the cell table over a real run plus an incomplete cell, offscreen.

#include "cell_inspector_panel.h"
#include "cli_runner.h"
#include "image_checks.h"
#include "models/results_cell_model.h"
#include "rank_files.h"
#include "report/report_data.h"
#include "result_plots.h"
#include "results_view.h"
#include "store/ingest.h"

#include <qcustomplot.h>

#include <QAbstractItemModelTester>
#include <QDir>
#include <QSignalSpy>
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
        QCOMPARE(int(data_.cells.size()), 3);
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
        // In the plot: a red cross at world size 8, not a point of a series.
        QCustomPlot* overhead = view.plot("overhead_vs_world_size");
        bool flagged = false;
        for (int i = 0; i < overhead->graphCount(); ++i) {
            const QCPGraph* g = overhead->graph(i);
            if (g->name().startsWith("incomplete")) {
                flagged = g->data()->size() == 1 && g->data()->begin()->key == 8;
            } else {
                for (auto it = g->data()->begin(); it != g->data()->end(); ++it) {
                    QVERIFY(it->key != 8);
                }
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

    void inspectorShowsTheCellsTwoInstruments() {
        widgets::CellInspectorPanel panel;
        panel.showCell(data_, "mlp2m_gloo_cpu_ws2_r0");
        QVERIFY(panel.agreementText().contains("trace / hook"));
        QVERIFY(panel.agreementText().contains("within"));
        QCOMPARE(panel.plot()->graph(0)->dataCount(),
                 int(data_.bucketsByCell.value("mlp2m_gloo_cpu_ws2_r0").size()));
        panel.showCell(data_, "mlp2m_gloo_cpu_ws8_r0");
        QVERIFY(panel.agreementText().contains("incomplete"));
        QCOMPARE(panel.plot()->graphCount(), 0);
    }

    void exportWritesNonBlankFiles() {
        widgets::ResultsView view;
        view.resize(1200, 700);
        view.setData(data_);
        const QString out = work_.filePath("export");
        const QStringList files = view.exportPlots(out);
        QCOMPARE(files.size(), 9);
        for (const QString& f : files) {
            QFile file(f);
            QVERIFY(file.open(QIODevice::ReadOnly));
            const QByteArray head = file.read(400);
            if (f.endsWith(".pdf")) {
                QVERIFY(head.startsWith("%PDF-"));
            } else if (f.endsWith(".svg")) {
                QVERIFY(head.contains("<svg"));
                QVERIFY(file.size() > 2000);
            } else {
                QVERIFY(distinctColours(QImage(f), 3) > 8);
            }
        }
    }
};

QTEST_MAIN(TstGuiResults)
#include "tst_gui_results.moc"
