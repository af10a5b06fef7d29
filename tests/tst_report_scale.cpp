// SPDX-License-Identifier: GPL-3.0-or-later
// The figures at a study's scale: 4, 33 and 300 cells made from a real smoke run's cells
// (tests/study_folders.h), exported by the real `commprof report --width-in 3.3 --font-pt 8`.
// Each figure's PDF is read back by poppler (pdftotext -bbox): every word on the page, no two
// words over each other; and the figure laid out as the report lays it out keeps its plot area
// at least half of the page's height and its legend within a third. On screen, the results view
// at 1920x1080 and 1366x768 gives each figure a legend within a third of it, and names each
// hook's colour once.

#include "gui_helpers.h"
#include "pdf_words.h"
#include "report/report_data.h"
#include "report_writer.h"
#include "result_plots.h"
#include "results_view.h"
#include "store/open_results.h"
#include "study_folders.h"

#include <qcustomplot.h>

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

#include <map>

using namespace commprof;

namespace {

struct Study {
    QString dir;
    QString report; // `commprof report` at 3.3 in, 8 pt
    report::ReportData data;
};

// The plot area: the smallest of the figure's axis rects.
int plotAreaHeight(const QCustomPlot& plot) {
    int least = plot.height();
    for (QCPAxisRect* r : plot.axisRects()) {
        least = std::min(least, r->height());
    }
    return least;
}

int legendHeight(const QCustomPlot& plot) {
    return plot.legend && plot.legend->visible() ? plot.legend->outerRect().height() : 0;
}

} // namespace

class TstReportScale : public QObject {
    Q_OBJECT
    QTemporaryDir work_;
    std::map<int, Study> studies_;

private slots:
    void initTestCase() {
        isolateSettings();
        // To look at the studies and their reports afterwards: COMMPROF_KEEP_STUDIES=1.
        if (!qEnvironmentVariableIsEmpty("COMMPROF_KEEP_STUDIES")) {
            work_.setAutoRemove(false);
            qInfo("studies kept in %s", qPrintable(work_.path()));
        }
        const QString smoke = work_.filePath("smoke");
        const QString error = runSmoke(smoke);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        for (const StudyShape& shape : {smallStudy(), tuningStudy(), largeStudy()}) {
            Study s;
            s.dir = work_.filePath(QString("study%1").arg(shape.cells()));
            QVERIFY(makeStudyFolder(smoke, s.dir, shape));
            s.report = s.dir + "_report";
            const CliResult r = runCli("commprof", {"report", s.dir, "--out", s.report,
                                                    "--width-in", "3.3", "--font-pt", "8"});
            QVERIFY2(r.exitCode == 0, r.err.constData());
            const store::OpenedResults opened =
                store::openResults(s.dir, store::defaultDbPath(s.dir), {});
            s.data = report::loadReportData(*opened.db, QDir(s.dir).canonicalPath());
            int complete = 0;
            for (const auto& c : s.data.cells) {
                complete += c.complete();
            }
            QCOMPARE(complete, shape.cells()); // the copies are cells as good as the donor
            studies_[shape.cells()] = std::move(s);
        }
    }

    void everyFigureHoldsInAColumn_data() {
        QTest::addColumn<int>("cells");
        QTest::addColumn<QString>("figure");
        for (const int cells :
             {smallStudy().cells(), tuningStudy().cells(), largeStudy().cells()}) {
            for (const auto& f : widgets::reportFigures()) {
                QTest::addRow("%d cells, %s", cells, f.name) << cells << QString(f.name);
            }
        }
    }
    void everyFigureHoldsInAColumn() {
        QFETCH(int, cells);
        QFETCH(QString, figure);
        const Study& s = studies_.at(cells);
        const widgets::FigureSpec* spec = widgets::figureNamed(figure);
        QVERIFY(spec);
        const QString pdf = QDir(s.report).filePath(figure + ".pdf");
        if (!spec->appliesTo(s.data)) {
            QVERIFY(!QFile::exists(pdf));
            return;
        }
        const PdfPage page = wordsOf(pdf);
        QVERIFY2(page.words.size() >= 5, qPrintable(page.text()));
        QVERIFY2(std::abs(page.size.width() - 3.3 * 72) < 1.0,
                 qPrintable(QString::number(page.size.width())));
        const QStringList off = offThePage(page);
        QVERIFY2(off.isEmpty(), qPrintable(off.join("; ")));
        const QStringList over = overlappingWords(page);
        QVERIFY2(over.isEmpty(), qPrintable(over.join("; ")));

        // The layout the report drew: the plot area at least half the page, the legend within
        // a third of it, and the page no taller than it must be.
        QCustomPlot plot;
        widgets::ExportOptions o;
        o.widthIn = 3.3;
        o.fontPt = 8;
        const QSize size = widgets::layOutFigure(plot, *spec, s.data, o);
        const double unitsPerPt = plot.logicalDpiX() / 72.0;
        QVERIFY2(std::abs(size.height() / unitsPerPt - page.size.height()) < 2.0,
                 qPrintable(QString("%1 laid out, %2 pt written")
                                .arg(size.height() / unitsPerPt)
                                .arg(page.size.height())));
        const QString rects = QString("page %1x%2, plot area %3, legend %4")
                                  .arg(size.width())
                                  .arg(size.height())
                                  .arg(plotAreaHeight(plot))
                                  .arg(legendHeight(plot));
        qInfo("%d cells, %s: %s", cells, qPrintable(figure), qPrintable(rects));
        QVERIFY2(plotAreaHeight(plot) >= size.height() / 2, qPrintable(rects));
        QVERIFY2(legendHeight(plot) <= size.height() / 3, qPrintable(rects));
        QVERIFY2(page.size.height() <= 3.3 * 72 * 1.6, qPrintable(rects)); // a column's figure
    }

    // The results view at the screens of issue 40: every figure's legend within a third of it,
    // its plot area at least half of it.
    void theResultsViewKeepsEachFigureReadable_data() {
        QTest::addColumn<int>("cells");
        QTest::addColumn<QSize>("screen");
        for (const int cells : {tuningStudy().cells(), largeStudy().cells()}) {
            for (const QSize screen : {QSize(1920, 1080), QSize(1366, 768)}) {
                QTest::addRow("%d cells, %dx%d", cells, screen.width(), screen.height())
                    << cells << screen;
            }
        }
    }
    void theResultsViewKeepsEachFigureReadable() {
        QFETCH(int, cells);
        QFETCH(QSize, screen);
        widgets::ResultsView view;
        // The Results workspace gives the view about two thirds of the window's width.
        view.resize(screen.width() * 2 / 3, screen.height() - 120);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setData(studies_.at(cells).data);
        for (const QString& name : widgets::ResultsView::shownFigures()) {
            QCustomPlot* plot = view.plot(name.toLatin1().constData());
            if (!plot || !plot->isVisible() ||
                !widgets::figureNamed(name)->appliesTo(studies_.at(cells).data)) {
                continue;
            }
            widgets::placeLegend(*plot);
            const QString rects = QString("%1: figure %2x%3, plot area %4, legend %5")
                                      .arg(name)
                                      .arg(plot->width())
                                      .arg(plot->height())
                                      .arg(plotAreaHeight(*plot))
                                      .arg(legendHeight(*plot));
            qInfo("%s", qPrintable(rects));
            QVERIFY2(legendHeight(*plot) <= plot->height() / 3 + 1, qPrintable(rects));
            QVERIFY2(plotAreaHeight(*plot) >= plot->height() / 2, qPrintable(rects));
        }
    }

    // A colour per hook: the overhead figure's legend lists each hook once and each cap once,
    // in numeric order, whatever the number of cells.
    void theLegendNamesEachValueOnce() {
        QCustomPlot plot;
        widgets::setFigureSize(plot, {900, 600});
        widgets::figureNamed("overhead_vs_world_size")->draw(plot, studies_.at(300).data, {});
        widgets::placeLegend(plot);
        QStringList entries;
        for (int i = 0; i < plot.legend->itemCount(); ++i) {
            if (auto* item = qobject_cast<QCPPlottableLegendItem*>(plot.legend->item(i))) {
                entries << item->plottable()->name();
            }
        }
        QStringList caps;
        for (const QString& e : entries) {
            if (e.startsWith("bucket_cap_mb=")) {
                caps << e.mid(14);
            }
        }
        QCOMPARE(caps, (QStringList{"0.25", "1", "4", "16", "25"}));
        int allreduce = 0;
        for (int i = 0; i < plot.graphCount(); ++i) {
            const QCPGraph* g = plot.graph(i);
            if (g->dataCount() > 0 && g->name().contains("hook=allreduce")) {
                // The hook's own colour, shaded per model: the hue stays.
                QVERIFY2(
                    std::abs(g->pen().color().hue() - widgets::hookColour("allreduce").hue()) <= 4,
                    qPrintable(g->name()));
                ++allreduce;
            }
        }
        QCOMPARE(allreduce, 5 * 5); // a series per model and cap, the repeats its points
    }
};

QTEST_MAIN(TstReportScale)
#include "tst_report_scale.moc"
