// SPDX-License-Identifier: GPL-3.0-or-later
// Export: the chosen formats only, each file once, a page as wide as a paper's column, text
// between 8 and 9 pt on that page, PNG at the chosen dpi. The files are read back as files:
// the PDF's page box and the sizes of its text runs, the SVG's physical size, the PNG's pixels.

#include "gui_helpers.h"
#include "image_checks.h"
#include "pdf_words.h"
#include "plot_style.h"
#include "report/report_data.h"
#include "report_writer.h"
#include "result_plots.h"
#include "store/ingest.h"

#include <QDir>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <QtMath>

#include <qcustomplot.h>

#include <zlib.h>

using namespace commprof;

namespace {

QByteArray inflate(const QByteArray& in) {
    QByteArray out(int(in.size()) * 20 + 4096, '\0');
    uLongf n = uLongf(out.size());
    if (uncompress(reinterpret_cast<Bytef*>(out.data()), &n,
                   reinterpret_cast<const Bytef*>(in.constData()), uLong(in.size())) != Z_OK) {
        return {};
    }
    out.resize(int(n));
    return out;
}

struct PdfFacts {
    double pageWidthPt = 0;
    double pageHeightPt = 0;
    QList<double> textPt; // each text run's size on the page
};

// The page box and, from every content stream, each "size Tf" scaled by the "cm" in force
// (Qt's PDF writer sets one scale for the page; checked: a single cm with equal sx and sy).
PdfFacts readPdf(const QString& path) {
    QFile f(path);
    PdfFacts facts;
    if (!f.open(QIODevice::ReadOnly)) {
        return facts;
    }
    const QByteArray pdf = f.readAll();
    const auto box = QRegularExpression(R"(/MediaBox \[0 0 ([0-9.]+) ([0-9.]+)\])").match(pdf);
    facts.pageWidthPt = box.captured(1).toDouble();
    facts.pageHeightPt = box.captured(2).toDouble();
    qsizetype at = 0;
    while ((at = pdf.indexOf("stream", at)) >= 0) {
        qsizetype begin = at + 6;
        while (begin < pdf.size() && (pdf[begin] == '\r' || pdf[begin] == '\n')) {
            ++begin;
        }
        const qsizetype end = pdf.indexOf("endstream", begin);
        if (end < 0) {
            break;
        }
        QByteArray content = inflate(pdf.mid(begin, end - begin));
        if (content.isEmpty()) {
            content = pdf.mid(begin, end - begin);
        }
        const auto cm = QRegularExpression(R"(([0-9.]+) 0 0 -?([0-9.]+) [0-9.]+ [0-9.]+ cm)")
                            .match(QString::fromLatin1(content));
        const double scale = cm.hasMatch() ? cm.captured(1).toDouble() : 1.0;
        for (auto it = QRegularExpression(R"(/F\d+ ([0-9.]+) Tf)")
                           .globalMatch(QString::fromLatin1(content));
             it.hasNext();) {
            facts.textPt << it.next().captured(1).toDouble() * scale;
        }
        at = end + 9;
    }
    return facts;
}

} // namespace

class TstGuiExport : public QObject {
    Q_OBJECT
    QTemporaryDir work_;
    QString run_;
    report::ReportData data_;

private slots:
    void initTestCase() {
        isolateSettings();
        run_ = work_.filePath("run");
        const QString error = runSmoke(run_);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        store::ingest(run_, store::defaultDbPath(run_));
        store::Database db(store::defaultDbPath(run_));
        data_ = report::loadReportData(db, QDir(run_).canonicalPath());
    }

    void chosenFormatsOnlyEachOnce() {
        widgets::ExportOptions o;
        o.pdf = true;
        o.svg = true;
        o.png = false;
        o.tables = true;
        const QString out = work_.filePath("each_once");
        store::Database db(store::defaultDbPath(run_));
        const QStringList written = widgets::writeReport(db, data_, out, o);
        QStringList expected{"buckets.csv", "cells.csv", "fit.json", "macros.tex", "sweep.csv"};
        for (const char* f : {"overhead_vs_world_size", "bucket_time_vs_bytes", "time_breakdown",
                              "hook_trace_agreement", "sweep_bandwidth"}) {
            expected << QString(f) + ".pdf" << QString(f) + ".svg";
        }
        expected.sort();
        QStringList onDisk = QDir(out).entryList(QDir::AllEntries | QDir::NoDotAndDotDot);
        onDisk.sort();
        QCOMPARE(onDisk, expected); // no PNG, no plots/ copy
        QCOMPARE(written.size(), expected.size());
    }

    void aSingleColumnPdfHasPaperSizedText_data() {
        QTest::addColumn<double>("widthIn");
        QTest::addColumn<double>("fontPt");
        QTest::newRow("single column, 8 pt") << 3.3 << 8.0;
        QTest::newRow("single column, 9 pt") << 3.3 << 9.0;
        QTest::newRow("double column, 9 pt") << 7.0 << 9.0;
    }
    void aSingleColumnPdfHasPaperSizedText() {
        QFETCH(double, widthIn);
        QFETCH(double, fontPt);
        widgets::ExportOptions o;
        o.pdf = true;
        o.png = false;
        o.widthIn = widthIn;
        o.fontPt = fontPt;
        const QString out = work_.filePath(QString("pdf_%1_%2").arg(widthIn).arg(fontPt));
        for (const auto& figure : widgets::reportFigures()) {
            if (!figure.appliesTo(data_)) {
                continue;
            }
            widgets::writeFigure(figure, data_, out, o);
            const PdfFacts pdf = readPdf(QDir(out).filePath(QString(figure.name) + ".pdf"));
            QVERIFY2(std::abs(pdf.pageWidthPt - widthIn * 72) < 1.0,
                     qPrintable(QString::number(pdf.pageWidthPt)));
            QVERIFY(pdf.pageHeightPt > widthIn * 72 * 0.4);
            QVERIFY(pdf.textPt.size() >= 3);
            for (double pt : pdf.textPt) {
                QVERIFY2(pt >= 7.9 && pt <= 9.1,
                         qPrintable(QString("%1: text at %2 pt").arg(figure.name).arg(pt)));
            }
        }
    }

    // The real `commprof report` at the Export dialog's sizes: every word of every figure on
    // its page, the sweep's note whole, and the data keep most of the figure.
    void theCliReportKeepsEveryWordOnThePage_data() {
        QTest::addColumn<QString>("widthIn");
        QTest::addColumn<QString>("fontPt");
        QTest::newRow("single column, 8 pt") << "3.3"
                                             << "8";
        QTest::newRow("double column, 9 pt") << "7"
                                             << "9";
    }
    void theCliReportKeepsEveryWordOnThePage() {
        QFETCH(QString, widthIn);
        QFETCH(QString, fontPt);
        const QString out = work_.filePath("cli_" + widthIn + "_" + fontPt);
        const CliResult r = runCli(
            "commprof", {"report", run_, "--out", out, "--width-in", widthIn, "--font-pt", fontPt});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        int figures = 0;
        for (const auto& figure : widgets::reportFigures()) {
            if (!figure.appliesTo(data_)) {
                QVERIFY(!QFile::exists(QDir(out).filePath(QString(figure.name) + ".pdf")));
                continue; // not about this run: not written
            }
            const PdfPage page = wordsOf(QDir(out).filePath(QString(figure.name) + ".pdf"));
            QVERIFY2(std::abs(page.size.width() - widthIn.toDouble() * 72) < 1.0,
                     qPrintable(QString::number(page.size.width())));
            QVERIFY2(page.words.size() >= 5, figure.name);
            const QStringList bad = offThePage(page);
            QVERIFY2(bad.isEmpty(), qPrintable(QString(figure.name) + ": " + bad.join("; ")));
            ++figures;
            if (QString(figure.name) == "sweep_bandwidth") {
                // The smoke run's world-size-1 sweep is named in the note, every word of it.
                QVERIFY2(page.text().contains("not drawn, one rank moves no data: gloo_cpu ws1"),
                         qPrintable(page.text()));
            }
        }
        QCOMPARE(figures, 5);
        // Refused sizes name the flag.
        const CliResult bad =
            runCli("commprof", {"report", run_, "--out", out, "--width-in", "0.5"});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains("--width-in"), bad.err.constData());
    }

    // 1,000 cells on a 3.3 in page: the cell axis labels are thinned so that no two words of
    // the page overlap (read back by pdftotext), instead of a black band of labels.
    void aThousandCellsKeepTheirLabelsApart() {
        report::ReportData many;
        const store::CellRow* ddp = nullptr;
        for (const auto& c : data_.cells) {
            if (!c.isSweep() && c.complete()) {
                ddp = &c;
            }
        }
        QVERIFY(ddp);
        for (int i = 0; i < 1000; ++i) {
            store::CellRow c = *ddp;
            c.id = QString("cell%1").arg(i);
            c.worldSize = 1 + i % 8;
            c.computeMs = 10.0 + i % 7;
            many.cells.push_back(c);
        }
        widgets::ExportOptions o;
        o.pdf = true;
        o.png = false;
        o.widthIn = widgets::ExportOptions::kSingleColumnIn;
        o.fontPt = 8;
        const QString out = work_.filePath("thousand");
        for (const char* name : {"time_breakdown", "hook_trace_agreement"}) {
            widgets::writeFigure(*widgets::figureNamed(name), many, out, o);
            const PdfPage page = wordsOf(QDir(out).filePath(QString(name) + ".pdf"));
            QVERIFY2(offThePage(page).isEmpty(), qPrintable(offThePage(page).join("; ")));
            // The labels the cell axis draws, as laid out at the page's size: each one's box
            // (rotated as drawn) clear of the next one's.
            QCustomPlot plot;
            widgets::setFigureSize(
                plot, {int(3.3 * plot.logicalDpiX()), int(3.3 * 0.62 * plot.logicalDpiX())});
            widgets::FigureStyle style;
            style.fontPt = 8;
            widgets::figureNamed(name)->draw(plot, many, style);
            widgets::placeLegend(plot);
            const QVector<double> ticks = plot.xAxis->tickVector();
            const QVector<QString> texts = plot.xAxis->tickVectorLabels();
            QVERIFY2(ticks.size() >= 3 && ticks.size() < 100,
                     qPrintable(QString::number(ticks.size())));
            const QFontMetricsF fm(plot.xAxis->tickLabelFont());
            const double angle = qDegreesToRadians(std::abs(plot.xAxis->tickLabelRotation()));
            double previousRight = -1e9;
            for (int i = 0; i < ticks.size(); ++i) {
                const QRectF text = fm.boundingRect(QRectF(), Qt::TextDontClip, texts[i]);
                const double width =
                    text.width() * std::cos(angle) + text.height() * std::sin(angle);
                const double centre = plot.xAxis->coordToPixel(ticks[i]);
                QVERIFY2(centre - width / 2 >= previousRight,
                         qPrintable(QString("%1: label %2 over the one before").arg(name).arg(i)));
                previousRight = centre + width / 2;
            }
        }
    }

    void svgIsAsWideAsTheColumn() {
        widgets::ExportOptions o;
        o.pdf = false;
        o.svg = true;
        o.png = false;
        o.widthIn = widgets::ExportOptions::kSingleColumnIn;
        const QString out = work_.filePath("svg");
        const auto* figure = widgets::figureNamed("time_breakdown");
        widgets::writeFigure(*figure, data_, out, o);
        QFile f(QDir(out).filePath("time_breakdown.svg"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString svg = QString::fromUtf8(f.readAll());
        const auto width = QRegularExpression(R"(<svg[^>]*width="([0-9.]+)mm")").match(svg);
        QVERIFY2(width.hasMatch(), qPrintable(svg.left(400)));
        QVERIFY2(std::abs(width.captured(1).toDouble() - 3.3 * 25.4) < 0.5,
                 qPrintable(width.captured(1)));
        QVERIFY(svg.contains("<text") || svg.contains("<path"));
    }

    void pngHasTheChosenDpi() {
        widgets::ExportOptions o;
        o.pdf = false;
        o.png = true;
        o.widthIn = widgets::ExportOptions::kSingleColumnIn;
        o.dpi = 200;
        const QString out = work_.filePath("png");
        widgets::writeFigure(*widgets::figureNamed("overhead_vs_world_size"), data_, out, o);
        const QImage png(QDir(out).filePath("overhead_vs_world_size.png"));
        QCOMPARE(png.width(), 660); // 3.3 in at 200 dpi
        QVERIFY(std::abs(png.dotsPerMeterX() * 0.0254 - 200) < 1);
        QVERIFY(distinctColours(png, 3) > 8);
    }

    void anUnwritableFolderIsAnErrorNamingIt() {
        widgets::ExportOptions o;
        const QString file = work_.filePath("a_file");
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.close();
        try {
            widgets::writeFigure(*widgets::figureNamed("time_breakdown"), data_, file + "/sub", o);
            QFAIL("expected an error");
        } catch (const std::runtime_error& e) {
            QVERIFY(QString(e.what()).contains(file));
        }
    }
};

QTEST_MAIN(TstGuiExport)
#include "tst_gui_export.moc"
