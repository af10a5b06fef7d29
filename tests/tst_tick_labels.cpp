// SPDX-License-Identifier: GPL-3.0-or-later
// Axis labels never overlap: an axis fitted to values (fitAxis, linear or logarithmic) at a
// figure's sizes, from a report column's 140 px to a full screen. The check is the labels'
// own boxes, measured with the axis font: each label's extent along the axis against the
// distance between neighbouring ticks on the laid-out axis. A range of 12x (logarithmic, under
// the 1.6 decades where QCustomPlot's own log ticker falls back to linear steps) was what drew
// "300" over "250" over "200" in a 3.3-inch report figure.

#include "gui_helpers.h"
#include "pdf_words.h"
#include "plot_style.h"
#include "readable_ticker.h"
#include "report/report_data.h"
#include "report_writer.h"
#include "result_plots.h"

#include <qcustomplot.h>

#include <QTemporaryDir>
#include <QTest>

using namespace commprof;

namespace {

struct Label {
    double px;
    QString text;
};

// The visible labels of an axis, in pixel order along it.
QVector<Label> visibleLabels(const QCPAxis* axis) {
    QVector<Label> out;
    const QVector<double> ticks = axis->tickVector();
    const QVector<QString> labels = axis->tickVectorLabels();
    for (qsizetype i = 0; i < ticks.size(); ++i) {
        if (axis->range().contains(ticks[i]) && !labels.value(i).isEmpty()) {
            out.push_back({axis->coordToPixel(ticks[i]), labels[i]});
        }
    }
    std::sort(out.begin(), out.end(), [](const Label& a, const Label& b) { return a.px < b.px; });
    return out;
}

// Neighbouring visible labels of an axis whose boxes, measured with its font, touch: centred on
// their ticks, two clear when the ticks are half of each one's extent apart, and side by side
// a space more ("0.25" 3 px from "1" read "0.251").
QStringList crowdedLabels(const QCPAxis* axis) {
    const QVector<Label> labels = visibleLabels(axis);
    const QFontMetricsF fm(axis->tickLabelFont());
    const bool vertical = axis->orientation() == Qt::Vertical;
    QStringList crowded;
    for (qsizetype i = 1; i < labels.size(); ++i) {
        const double apart = std::abs(labels[i].px - labels[i - 1].px);
        const double need = vertical ? fm.height()
                                     : (fm.horizontalAdvance(labels[i].text) +
                                        fm.horizontalAdvance(labels[i - 1].text)) /
                                               2.0 +
                                           fm.horizontalAdvance(' ');
        if (apart < need) {
            crowded << QString("'%1' and '%2' %3 px apart, %4 px needed")
                           .arg(labels[i - 1].text, labels[i].text)
                           .arg(apart, 0, 'f', 1)
                           .arg(need, 0, 'f', 1);
        }
    }
    return crowded;
}

} // namespace

class TstTickLabels : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { isolateSettings(); }

    void labelsClearEachOther_data() {
        QTest::addColumn<QVector<double>>("values");
        QTest::addColumn<int>("side");
        QTest::addColumn<bool>("vertical");
        QTest::addColumn<double>("zoomLow");
        QTest::addColumn<double>("zoomHigh");
        const QList<QPair<const char*, QVector<double>>> ranges{
            {"12x (log, under 1.6 decades)", {26, 60, 140, 300}},
            {"40x (log)", {7, 90, 280}},
            {"3 decades (log)", {0.4, 12, 380}},
            {"7 decades (log)", {1e-3, 2, 9e3}},
            {"linear from zero", {0, 120, 310}},
            {"linear, large numbers", {0, 123456, 987654}},
            {"linear, narrow", {99.1, 99.7, 100.4}},
            {"log zoomed to 100-130", {1, 100, 1000}},
            {"log zoomed to 2-9", {1, 100, 1000}},
        };
        for (const auto& [name, values] : ranges) {
            for (const int side : {80, 140, 200, 400, 900}) {
                for (const bool vertical : {true, false}) {
                    QTest::addRow("%s, %d px, %s", name, side, vertical ? "y" : "x")
                        << values << side << vertical
                        << (QString(name).contains("100-130") ? 100.0
                            : QString(name).contains("2-9")   ? 2.0
                                                              : 0.0)
                        << (QString(name).contains("100-130") ? 130.0 : 9.0);
                }
            }
        }
    }
    void labelsClearEachOther() {
        QFETCH(QVector<double>, values);
        QFETCH(int, side);
        QFETCH(bool, vertical);
        QCustomPlot plot;
        widgets::FigureStyle style;
        style.fontPt = 8;
        widgets::resetFigure(plot, "ticks", "x", "y", style);
        QCPAxis* axis = vertical ? plot.yAxis : plot.xAxis;
        widgets::fitAxis(axis, values, values.front() == 0);
        QFETCH(double, zoomLow);
        QFETCH(double, zoomHigh);
        if (zoomLow > 0) {
            QCOMPARE(axis->scaleType(), QCPAxis::stLogarithmic);
            axis->setRange(zoomLow, zoomHigh); // the user zoomed in on a log axis
        }
        // The figure is `side` pixels (and room for the title and the labels) along the axis.
        widgets::setFigureSize(plot, vertical ? QSize(600, side + 120) : QSize(side + 120, 600));
        plot.replot(QCustomPlot::rpImmediateRefresh);
        plot.replot(QCustomPlot::rpImmediateRefresh); // ticks see the rect as last laid out

        const QVector<Label> labels = visibleLabels(axis);
        QVERIFY2(labels.size() >= 2, qPrintable(QString("%1 label(s)").arg(labels.size())));
        QStringList texts;
        for (const Label& l : labels) {
            texts << l.text;
        }
        qInfo("%s", qPrintable(texts.join(' ')));
        const QStringList crowded = crowdedLabels(axis);
        QVERIFY2(crowded.isEmpty(), qPrintable(crowded.join("; ")));
    }

    // Issue 52 (audit): the cap study's log axis read "1e+04" (printf's %g at the figures' 4
    // significant digits). Numbers a reader writes plainly are written plainly, each one
    // against the text written here by hand.
    void numbersAreWrittenAsAReaderWritesThem_data() {
        QTest::addColumn<double>("value");
        QTest::addColumn<QString>("text");
        QTest::addRow("ten thousand") << 1e4 << "10000";
        QTest::addRow("a million") << 1e6 << "1000000";
        QTest::addRow("a quarter") << 0.25 << "0.25";
        QTest::addRow("three tenths, summed") << 0.1 + 0.2 << "0.3";
        QTest::addRow("a step past zero") << 5.551115123125783e-17 << "0";
        QTest::addRow("negative") << -300.0 << "-300";
        QTest::addRow("small") << 2e-4 << "0.0002";
        QTest::addRow("tiny") << 5e-5 << "5e-5";
        QTest::addRow("huge") << 2.5e7 << "2.5e7";
    }
    void numbersAreWrittenAsAReaderWritesThem() {
        QFETCH(double, value);
        QFETCH(QString, text);
        QCOMPARE(widgets::readableTickLabel(value, QLocale::c(), 4), text);
    }

    // The cap study's axis as it was drawn: 12 ms to 15000 ms, log, 4 significant digits.
    void aLogAxisUpTo10000ReadsPlainly() {
        QCustomPlot plot;
        widgets::FigureStyle style;
        style.fontPt = 8;
        widgets::resetFigure(plot, "ticks", "x", "ms", style);
        widgets::fitAxis(plot.yAxis, {12, 300, 15000}, true);
        QCOMPARE(plot.yAxis->scaleType(), QCPAxis::stLogarithmic);
        widgets::setFigureSize(plot, QSize(400, 300));
        plot.replot(QCustomPlot::rpImmediateRefresh);
        plot.replot(QCustomPlot::rpImmediateRefresh);
        QStringList texts;
        for (const Label& l : visibleLabels(plot.yAxis)) {
            texts << l.text;
        }
        QVERIFY2(texts.contains("10000"), qPrintable(texts.join(' ')));
        QVERIFY2(!texts.join(' ').contains('e'), qPrintable(texts.join(' ')));
    }

    // Before its first layout an axis has no length: its labels all stay. Dropping them there
    // (every tick at one pixel) left the first layout's y labels narrow, and the run names
    // of time_breakdown, fitted to that layout, unbroken across their neighbours' runs.
    void anAxisNotYetLaidOutKeepsItsLabels() {
        QCustomPlot plot;
        widgets::resetFigure(plot, "ticks", "x", "y", widgets::FigureStyle{});
        widgets::fitAxis(plot.yAxis, {0, 120, 310}, true);
        plot.replot(QCustomPlot::rpImmediateRefresh); // ticks come before the layout
        const QVector<double> ticks = plot.yAxis->tickVector();
        QCOMPARE(visibleLabels(plot.yAxis).size(),
                 std::count_if(ticks.begin(), ticks.end(),
                               [&](double t) { return plot.yAxis->range().contains(t); }));
        QVERIFY(visibleLabels(plot.yAxis).size() >= 2);
    }

    // Issue 52 (audit): a cap study's tuning figure in a 3.3-inch column at 8 pt, three models'
    // panels side by side. The transformer's steps of seconds gave its panel y labels up to
    // "10000", which left it so narrow that its base-2 cap axis drew "0.25" and "1" as "0.251".
    void aNarrowPanelsCapAxisDropsTouchingLabels() {
        report::ReportData data;
        data.tuning.emplace();
        for (const auto& [model, stepMs] :
             {std::pair{"mlp1m", 90.0}, {"mlp2m", 120.0}, {"transformer2m", 4000.0}}) {
            analysis::CapGroup g;
            g.model = model;
            g.layer = "gloo_cpu";
            g.hook = "allreduce";
            g.worldSize = 2;
            for (const double cap : {0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0}) {
                analysis::CapCandidate c;
                c.capMb = cap;
                c.predictedStepMs = stepMs;
                c.predictedExposedMs = stepMs / (20 + cap);
                g.candidates.push_back(c);
            }
            data.tuning->groups.push_back(g);
        }
        QCustomPlot plot;
        widgets::ExportOptions o;
        o.widthIn = 3.3;
        o.fontPt = 8;
        widgets::layOutFigure(plot, *widgets::figureNamed("tuning"), data, o);
        QCOMPARE(plot.axisRects().size(), 3);
        for (QCPAxisRect* panel : plot.axisRects()) {
            for (const QCPAxis* axis : panel->axes()) {
                if (axis->visible() && axis->tickLabels()) {
                    const QStringList crowded = crowdedLabels(axis);
                    QVERIFY2(crowded.isEmpty(), qPrintable(crowded.join("; ")));
                }
            }
        }
    }

    // Issue 52 (CI, Debian 12): a 2-model tuning figure at 9 pt drew its y axis's lowest label,
    // "10", at the panel's bottom corner over the cap axis's first label, "0.25", which a narrow
    // panel puts half out to its left; the top one, "10000", reached the panel's name above it.
    // Here the lowest y value walks from 6 to 25 ms so that the "10" and "20" ticks pass through
    // the bottom corner and the top tick past the top, and poppler reads each PDF's words.
    void aPanelsCornerKeepsItsTwoAxesLabelsApart() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        for (double lowMs = 6.0; lowMs <= 25.0; lowMs += 0.1) {
            report::ReportData data;
            data.tuning.emplace();
            for (const char* model : {"mlp1m", "transformer2m"}) {
                analysis::CapGroup g;
                g.model = model;
                g.layer = "gloo_cpu";
                g.hook = "allreduce";
                g.worldSize = 2;
                for (const double cap : {0.25, 1.0, 4.0, 25.0}) {
                    analysis::CapCandidate c;
                    c.capMb = cap;
                    c.predictedStepMs = 3000;
                    c.predictedExposedMs = lowMs * (1 + cap);
                    g.candidates.push_back(c);
                }
                data.tuning->groups.push_back(g);
            }
            widgets::ExportOptions o;
            o.widthIn = 3.3;
            o.png = false;
            o.tables = false;
            widgets::writeFigure(*widgets::figureNamed("tuning"), data, dir.path(), o);
            const PdfPage page = wordsOf(QDir(dir.path()).filePath("tuning.pdf"));
            QVERIFY2(page.words.size() > 10, qPrintable(page.text()));
            const QStringList over = overlappingWords(page);
            QVERIFY2(over.isEmpty(),
                     qPrintable(QString("lowest %1 ms: %2").arg(lowMs).arg(over.join("; "))));
        }
    }
};

QTEST_MAIN(TstTickLabels)
#include "tst_tick_labels.moc"
