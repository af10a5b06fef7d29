// SPDX-License-Identifier: GPL-3.0-or-later
// The result plots on the real widget: world-size ticks are integers, the legend rectangle
// covers no data point's pixel, an axis is logarithmic exactly where its data span more than
// ten times, a failed or incomplete cell is never drawn at y = 0, fit lines differ per world
// size, a layer keeps its colour across figures, and hovering names the cell.

#include "facets.h"
#include "gui_helpers.h"
#include "rank_files.h"
#include "report/report_data.h"
#include "result_plots.h"
#include "store/ingest.h"
#include "sweep_plot.h"

#include <qcustomplot.h>

#include <QDir>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

using namespace commprof;

namespace {

// Every place data is drawn, in pixels, computed here from the plot's own data and axes.
QVector<QRectF> dataPixels(QCustomPlot& plot) {
    QVector<QRectF> out;
    for (int i = 0; i < plot.graphCount(); ++i) {
        QCPGraph* g = plot.graph(i);
        const double r = std::max(2.0, g->scatterStyle().size() / 2.0);
        for (auto it = g->data()->begin(); it != g->data()->end(); ++it) {
            const QPointF p(plot.xAxis->coordToPixel(it->key), plot.yAxis->coordToPixel(it->value));
            out << QRectF(p.x() - r, p.y() - r, 2 * r, 2 * r);
        }
    }
    for (int i = 0; i < plot.plottableCount(); ++i) {
        auto* bars = qobject_cast<QCPBars*>(plot.plottable(i));
        if (!bars) {
            continue;
        }
        for (auto it = bars->data()->begin(); it != bars->data()->end(); ++it) {
            double base = 0;
            for (QCPBars* b = bars->barBelow(); b; b = b->barBelow()) {
                const auto at = b->data()->findBegin(it->key);
                base += at != b->data()->end() && at->key == it->key ? at->value : 0.0;
            }
            out << QRectF(QPointF(plot.xAxis->coordToPixel(it->key - bars->width() / 2),
                                  plot.yAxis->coordToPixel(base + it->value)),
                          QPointF(plot.xAxis->coordToPixel(it->key + bars->width() / 2),
                                  plot.yAxis->coordToPixel(base)))
                       .normalized();
        }
    }
    return out;
}

report::ReportData synthetic(const QVector<int>& worldSizes, double minBytes, double maxBytes) {
    report::ReportData d;
    auto& layer = d.bucketPools["gloo_cpu"];
    layer.layer = "gloo_cpu";
    layer.hook = "allreduce";
    for (int ws : worldSizes) {
        store::CellRow c;
        c.id = QString("m_gloo_cpu_ws%1_r0").arg(ws);
        c.status = "complete";
        c.model = "m";
        c.layer = "gloo_cpu";
        c.worldSize = ws;
        c.commOverheadFraction = 0.01 * ws;
        c.computeMs = 100.0;
        c.exposedCommMs = 2.0 * ws;
        c.bookkeepingMs = 1.0;
        c.stepMs = 103.0 + 2.0 * ws;
        c.hookTraceAgreement = 1.0;
        d.cells.push_back(c);
        for (int k = 0; k < 6; ++k) {
            const double bytes = minBytes * std::pow(maxBytes / minBytes, k / 5.0);
            const double seconds = 1e-5 + bytes / 1e9 * (ws - 1) / ws * 2;
            d.bucketsByCell[c.id].push_back({ws, bytes, seconds});
            if (ws > 1) { // one rank sends nothing: no bucket of its goes into a pool
                layer.samples.push_back({ws, bytes, seconds});
            }
        }
    }
    layer.fit = analysis::fitAlphaBeta(layer.samples);
    // A sweep cell of all_reduce and broadcast at each world size above one: bandwidth rising
    // with size from 8 B over the decades the byte sizes span, then flattening.
    for (int ws : worldSizes) {
        if (ws < 2) {
            continue;
        }
        store::CellRow c;
        c.id = QString("sweep_gloo_cpu_ws%1_r0").arg(ws);
        c.kind = "sweep";
        c.status = "complete";
        c.model = "sweep";
        c.layer = "gloo_cpu";
        c.worldSize = ws;
        d.cells.push_back(c);
        for (const char* kind : {"all_reduce", "broadcast"}) {
            store::StoredSweep s;
            s.series.kind = kind;
            s.series.layer = "gloo_cpu";
            s.series.worldSize = ws;
            for (double bytes = 8; bytes <= maxBytes; bytes *= 2) {
                s.series.points.push_back(
                    analysis::sweepPoint(kind, bytes, ws, {{0, 50.0 + bytes * 1e-3 * ws}}));
            }
            d.sweepsByCell[c.id].push_back(s);
        }
    }
    return d;
}

// Each sweep cell again as its repeat `repeat`, each size timed `timeFactor` times as long.
void addSweepRepeat(report::ReportData& data, int repeat = 1, double timeFactor = 1.0) {
    for (store::CellRow c : std::vector<store::CellRow>(data.cells)) {
        if (c.isSweep() && c.repeat == 0) {
            const QString first = c.id;
            c.id.replace("_r0", QString("_r%1").arg(repeat));
            c.repeat = repeat;
            std::vector<store::StoredSweep> series = data.sweepsByCell.value(first);
            for (store::StoredSweep& s : series) {
                for (analysis::SweepPoint& p : s.series.points) {
                    p = analysis::sweepPoint(s.series.kind, p.bytes, s.series.worldSize,
                                             {{0, p.slowestUs * timeFactor}});
                }
            }
            data.sweepsByCell[c.id] = series;
            data.cells.push_back(c);
        }
    }
}

// A sweep cell's series of one kind.
const analysis::SweepSeries& seriesOf(const report::ReportData& data, const QString& cell,
                                      const QString& kind) {
    const auto& all = *data.sweepsByCell.constFind(cell);
    return std::ranges::find(all, kind, [](const auto& s) { return s.series.kind; })->series;
}

double span(const QVector<double>& v) {
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    return *hi / *lo;
}

// A complete gloo_cpu cell of a study (repeat 0), its axes the study's; the caller sets its times.
store::CellRow studyCell(const QString& model, const QString& hook, const QString& cap, int ws) {
    store::CellRow c;
    c.id = QString("%1_gloo_cpu_ws%2_cap%3_%4_r0").arg(model).arg(ws).arg(cap, hook);
    c.status = "complete";
    c.model = model;
    c.layer = "gloo_cpu";
    c.worldSize = ws;
    c.axes = {{"model", model}, {"layer", "gloo_cpu"},  {"world_size", QString::number(ws)},
              {"hook", hook},   {"bucket_cap_mb", cap}, {"repeat", "0"}};
    return c;
}

} // namespace

class TstGuiPlots : public QObject {
    Q_OBJECT
    QTemporaryDir work_;
    report::ReportData real_;

    void draw(QCustomPlot& plot, const char* figure, const report::ReportData& data, QSize size) {
        widgets::setFigureSize(plot, size);
        widgets::figureNamed(figure)->draw(plot, data, {});
        widgets::placeLegend(plot);
    }

private slots:
    void initTestCase() {
        isolateSettings();
        const QString dir = work_.filePath("run");
        const QString error = runSmoke(dir);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(addOomLeftovers(dir)); // an incomplete cell at world size 8
        store::ingest(dir, store::defaultDbPath(dir));
        store::Database db(store::defaultDbPath(dir));
        real_ = report::loadReportData(db, QDir(dir).canonicalPath());
        QCOMPARE(int(real_.cells.size()), 6); // 2 DDP cells, 3 sweeps, the planted one
    }

    void worldSizeTicksAreIntegers_data() {
        QTest::addColumn<int>("dataset");
        QTest::addColumn<QSize>("size");
        for (const QSize s : {QSize(300, 220), QSize(500, 350), QSize(1200, 600)}) {
            QTest::addRow("smoke run (1, 2, incomplete 8) %dx%d", s.width(), s.height()) << 0 << s;
            QTest::addRow("smoke run, complete cells (1, 2) %dx%d", s.width(), s.height())
                << 1 << s;
            QTest::addRow("1 to 16 ranks %dx%d", s.width(), s.height()) << 2 << s;
        }
    }
    void worldSizeTicksAreIntegers() {
        QFETCH(int, dataset);
        QFETCH(QSize, size);
        auto data = dataset == 2 ? synthetic({1, 2, 3, 4, 8, 16}, 1e5, 2.5e7) : real_;
        if (dataset == 1) {
            std::erase_if(data.cells, [](const store::CellRow& c) { return !c.complete(); });
        }
        QCustomPlot plot;
        draw(plot, "overhead_vs_world_size", data, size);
        const QVector<double> ticks = plot.xAxis->tickVector();
        QVERIFY(!ticks.isEmpty());
        for (int i = 0; i < ticks.size(); ++i) {
            QCOMPARE(ticks[i], std::round(ticks[i]));
            QCOMPARE(plot.xAxis->tickVectorLabels()[i], QString::number(std::llround(ticks[i])));
        }
    }

    void theLegendCoversNoDataPoint_data() {
        QTest::addColumn<QString>("figure");
        QTest::addColumn<QSize>("size");
        QTest::addColumn<bool>("real");
        for (const auto& f : widgets::reportFigures()) {
            for (const QSize s : {QSize(300, 220), QSize(430, 280), QSize(900, 520)}) {
                for (bool real : {true, false}) {
                    QTest::addRow("%s %dx%d %s", f.name, s.width(), s.height(),
                                  real ? "smoke" : "synthetic")
                        << QString(f.name) << s << real;
                }
            }
        }
    }
    void theLegendCoversNoDataPoint() {
        QFETCH(QString, figure);
        QFETCH(QSize, size);
        QFETCH(bool, real);
        const auto data = real ? real_ : synthetic({1, 2, 4, 8}, 1e6, 2.6e7);
        if (!widgets::figureNamed(figure)->appliesTo(data)) {
            QSKIP("the figure is not about these results (tst_tuning_study draws the cap study)");
        }
        QCustomPlot plot;
        draw(plot, figure.toLatin1().constData(), data, size);
        QVERIFY(plot.legend->visible());
        const QRectF legend = plot.legend->outerRect();
        for (const QRectF& r : dataPixels(plot)) {
            QVERIFY2(!legend.intersects(r),
                     qPrintable(QString("legend %1,%2 %3x%4 covers data at %5,%6")
                                    .arg(legend.x())
                                    .arg(legend.y())
                                    .arg(legend.width())
                                    .arg(legend.height())
                                    .arg(r.center().x())
                                    .arg(r.center().y())));
        }
    }

    void logAxesExactlyWhereDataSpanDecades_data() {
        QTest::addColumn<double>("minBytes");
        QTest::addColumn<double>("maxBytes");
        QTest::newRow("0.1 to 25 MiB") << 1e5 << 2.6e7;
        QTest::newRow("1 to 4 MiB") << 1e6 << 4e6;
    }
    void logAxesExactlyWhereDataSpanDecades() {
        QFETCH(double, minBytes);
        QFETCH(double, maxBytes);
        const auto data = synthetic({2, 4}, minBytes, maxBytes);
        QCustomPlot plot;
        draw(plot, "bucket_time_vs_bytes", data, {600, 400});
        QVector<double> xs, ys;
        for (const auto& s : data.bucketPools["gloo_cpu"].samples) {
            xs << s.bytes;
            ys << s.seconds;
        }
        QCOMPARE(plot.xAxis->scaleType() == QCPAxis::stLogarithmic, span(xs) > 10);
        QCOMPARE(plot.yAxis->scaleType() == QCPAxis::stLogarithmic, span(ys) > 10);
        // The real smoke run: exposed communication of 0.2 % and 13 % spans more than ten.
        QCustomPlot overhead;
        draw(overhead, "overhead_vs_world_size", real_, {600, 400});
        QVector<double> fractions;
        for (const auto& c : real_.cells) {
            if (c.complete()) {
                fractions << *c.commOverheadFraction;
            }
        }
        QCOMPARE(overhead.yAxis->scaleType() == QCPAxis::stLogarithmic, span(fractions) > 10);
    }

    void aFailedCellIsNotDrawnAtZero() {
        auto data = real_;
        for (auto& c : data.cells) {
            if (c.id == "mlp2m_gloo_cpu_ws1_r0") {
                c.status = "failed"; // as a cell whose ranks crashed is recorded
                c.reasons = {"rank 1 exited 134"};
            }
        }
        for (const char* figure : {"overhead_vs_world_size", "time_breakdown"}) {
            QCustomPlot plot;
            draw(plot, figure, data, {600, 400});
            plot.replot();
            QStringList marked;
            for (int i = 0; i < plot.itemCount(); ++i) {
                auto* t = qobject_cast<QCPItemText*>(plot.item(i));
                if (!t || t->objectName() != "flagged") {
                    continue;
                }
                marked << t->property("cellId").toString();
                const double y = t->position->pixelPosition().y();
                const QRect axis = plot.axisRect()->rect();
                // In the band at the top of the axis rect, nowhere near y = 0 or the bottom.
                QVERIFY2(y < axis.top() + axis.height() * 0.15, figure);
                if (plot.yAxis->scaleType() == QCPAxis::stLinear) {
                    QVERIFY(std::abs(y - plot.yAxis->coordToPixel(0)) > 20);
                }
                QVERIFY(t->text().contains(
                    t->property("cellId").toString() == "mlp2m_gloo_cpu_ws1_r0" ? "failed"
                                                                                : "incomplete"));
            }
            marked.sort();
            QCOMPARE(marked, (QStringList{"mlp2m_gloo_cpu_ws1_r0", "mlp2m_gloo_cpu_ws8_r0"}));
            // No plotted value belongs to them: no point at world size 1 or 8, no bar at their
            // places on the axis.
            for (int i = 0; i < plot.graphCount(); ++i) {
                for (auto it = plot.graph(i)->data()->begin(); it != plot.graph(i)->data()->end();
                     ++it) {
                    if (QString(figure) == "overhead_vs_world_size") {
                        QVERIFY(it->key != 1 && it->key != 8);
                    }
                    QVERIFY(it->value != 0);
                }
            }
            for (int i = 0; i < plot.plottableCount(); ++i) {
                if (auto* b = qobject_cast<QCPBars*>(plot.plottable(i))) {
                    for (auto it = b->data()->begin(); it != b->data()->end(); ++it) {
                        const auto* cell = widgets::axisCells(data)[std::size_t(it->key) - 1];
                        QVERIFY(cell->complete());
                    }
                }
            }
        }
    }

    // Issue 29 item 13: a stacked bar reaches the cell's median step (the table's step_ms):
    // what the three kinds leave of it is drawn as "other".
    void aBreakdownBarAddsUpToTheStep() {
        auto data = real_;
        QCustomPlot plot;
        draw(plot, "time_breakdown", data, {600, 400});
        const auto cells = widgets::axisCells(data);
        QMap<double, double> tops;
        bool otherListed = false;
        for (int i = 0; i < plot.plottableCount(); ++i) {
            if (auto* b = qobject_cast<QCPBars*>(plot.plottable(i))) {
                otherListed = otherListed || b->name() == "rest of the step";
                for (auto it = b->data()->begin(); it != b->data()->end(); ++it) {
                    tops[it->key] += it->value;
                }
            }
        }
        QVERIFY(otherListed);
        QVERIFY(!tops.isEmpty());
        for (auto it = tops.begin(); it != tops.end(); ++it) {
            const store::CellRow* c = cells[std::size_t(it.key()) - 1];
            QVERIFY(c->stepMs);
            // Each kind's median is of its own steps: when the three add up to less than the
            // median step, "other" fills the bar to it; never is the bar shorter than the step.
            const double kinds = *c->computeMs + *c->exposedCommMs + c->bookkeepingMs.value_or(0);
            const double expected = std::max(kinds, *c->stepMs);
            QVERIFY2(std::abs(it.value() - expected) < 1e-6 * expected,
                     qPrintable(QString("%1: bar %2 ms, step %3 ms, kinds %4 ms")
                                    .arg(c->id)
                                    .arg(it.value())
                                    .arg(*c->stepMs)
                                    .arg(kinds)));
        }
    }

    void fitLinesDifferPerWorldSizeAndLayersKeepTheirColour() {
        const auto data = synthetic({2, 4}, 1e6, 2.6e7);
        QCustomPlot buckets, overhead;
        draw(buckets, "bucket_time_vs_bytes", data, {600, 400});
        draw(overhead, "overhead_vs_world_size", data, {600, 400});
        QList<QCPGraph*> fits;
        for (int i = 0; i < buckets.graphCount(); ++i) {
            if (buckets.graph(i)->name().contains("fit")) {
                fits << buckets.graph(i);
            }
        }
        QCOMPARE(fits.size(), 2);
        QVERIFY(fits[0]->pen().style() != fits[1]->pen().style());
        QVERIFY(fits[0]->name() != fits[1]->name());
        QCOMPARE(fits[0]->pen().color(), fits[1]->pen().color()); // one layer, one colour
        QCOMPARE(overhead.graph(0)->pen().color(), fits[0]->pen().color());
    }

    // Cells that differ in a DDP setting alone are two series and two labels, never one point
    // overwriting the other; repeats are one point of their series (their median), or each a
    // point of its own where the style asks.
    void cellsThatDifferInASettingAreSeriesOfTheirOwn() {
        report::ReportData d;
        const auto cell = [&](const QString& hook, int ws, int repeat, double fraction) {
            store::CellRow c;
            c.id = QString("m_gloo_cpu_ws%1_%2_r%3").arg(ws).arg(hook).arg(repeat);
            c.status = "complete";
            c.model = "m";
            c.layer = "gloo_cpu";
            c.worldSize = ws;
            c.commOverheadFraction = fraction;
            c.computeMs = c.exposedCommMs = c.bookkeepingMs = c.stepMs = 1.0;
            c.axes = {{"model", "m"},
                      {"layer", "gloo_cpu"},
                      {"world_size", QString::number(ws)},
                      {"hook", hook},
                      {"repeat", QString::number(repeat)}};
            d.cells.push_back(c);
        };
        cell("allreduce", 2, 0, 0.10);
        cell("allreduce", 2, 1, 0.12);
        cell("powersgd", 2, 0, 0.05);
        QCustomPlot overhead, bars;
        draw(overhead, "overhead_vs_world_size", d, {600, 400});
        draw(bars, "time_breakdown", d, {600, 400});
        QStringList names;
        int points = 0;
        for (int i = 0; i < overhead.graphCount(); ++i) {
            if (overhead.graph(i)->dataCount() > 0) {
                names << overhead.graph(i)->name();
                points += overhead.graph(i)->dataCount();
            }
        }
        names.sort();
        QCOMPARE(names, (QStringList{"m gloo_cpu hook=allreduce", "m gloo_cpu hook=powersgd"}));
        QCOMPARE(points, 2);
        QCustomPlot each;
        widgets::setFigureSize(each, {600, 400});
        widgets::FigureStyle eachRepeat;
        eachRepeat.eachRepeat = true;
        widgets::figureNamed("overhead_vs_world_size")->draw(each, d, eachRepeat);
        int eachPoints = 0;
        for (int i = 0; i < each.graphCount(); ++i) {
            eachPoints += each.graph(i)->dataCount();
        }
        QCOMPARE(eachPoints, 3);
        auto* ticker = dynamic_cast<QCPAxisTickerText*>(bars.xAxis->ticker().data());
        QVERIFY(ticker);
        QSet<QString> labels;
        for (const QString& l : ticker->ticks()) {
            labels.insert(l);
        }
        QCOMPARE(labels.size(), 2);           // the two repeats share a label; the hooks do not
        QVERIFY(labels.contains("powersgd")); // the distinguishing value only (issue 40)
    }

    // Issue 52: a study's repeats are drawn as their group's median with whiskers to the lowest
    // and highest repeat, by hand here: overheads of 10, 30 and 11 % have the median 11 (their
    // mean, 17, would be another point), whiskers 10 to 30. A failed fourth repeat is flagged,
    // never in the median. A click on the median picks the repeat at it; the tooltip names all.
    void repeatsAreDrawnAsTheirMedianAndSpread() {
        report::ReportData d;
        const auto cell = [&](int ws, int repeat, double fraction, double step,
                              const char* status = "complete") {
            store::CellRow c;
            c.id = QString("m_gloo_cpu_ws%1_r%2").arg(ws).arg(repeat);
            c.status = status;
            c.model = "m";
            c.layer = "gloo_cpu";
            c.worldSize = ws;
            c.repeat = repeat;
            c.commOverheadFraction = fraction;
            c.hookTraceAgreement = 1.0 + fraction / 10;
            c.computeMs = step - 2.0;
            c.exposedCommMs = 1.0;
            c.bookkeepingMs = 1.0;
            c.stepMs = step;
            c.axes = {{"model", "m"},
                      {"layer", "gloo_cpu"},
                      {"world_size", QString::number(ws)},
                      {"repeat", QString::number(repeat)}};
            d.cells.push_back(c);
        };
        cell(2, 0, 0.10, 50.0);
        cell(2, 1, 0.30, 90.0);
        cell(2, 2, 0.11, 60.0);
        cell(2, 3, 0.90, 500.0, "failed");
        cell(4, 0, 0.20, 70.0);
        QCustomPlot overhead;
        draw(overhead, "overhead_vs_world_size", d, {600, 400});
        QMap<double, double> points;
        for (int i = 0; i < overhead.graphCount(); ++i) {
            for (auto it = overhead.graph(i)->data()->begin();
                 it != overhead.graph(i)->data()->end(); ++it) {
                points.insert(it->key, it->value);
            }
        }
        QCOMPARE(points.size(), 2);
        QVERIFY(std::abs(points[2] - 11.0) < 1e-9);
        QVERIFY(std::abs(points[4] - 20.0) < 1e-9);
        QCPErrorBars* whiskers = nullptr;
        for (int i = 0; i < overhead.plottableCount(); ++i) {
            whiskers = whiskers ? whiskers : qobject_cast<QCPErrorBars*>(overhead.plottable(i));
        }
        QVERIFY(whiskers);
        const QCPErrorBarsData ws2 = whiskers->data()->at(0); // the world sizes in order: 2 first
        QVERIFY(std::abs(11.0 - ws2.errorMinus - 10.0) < 1e-9);
        QVERIFY(std::abs(11.0 + ws2.errorPlus - 30.0) < 1e-9);
        QStringList flagged;
        for (int i = 0; i < overhead.itemCount(); ++i) {
            if (overhead.item(i)->objectName() == "flagged") {
                flagged << overhead.item(i)->property("cellId").toString();
            }
        }
        QCOMPARE(flagged, QStringList{"m_gloo_cpu_ws2_r3"});
        // The click at the median picks its repeat; selecting any repeat marks the median.
        const QPointF at(overhead.xAxis->coordToPixel(2), overhead.yAxis->coordToPixel(11.0));
        QCOMPARE(widgets::cellAt(overhead, "overhead_vs_world_size", d, at),
                 QString("m_gloo_cpu_ws2_r2"));
        widgets::highlightCell(overhead, "overhead_vs_world_size", d, "m_gloo_cpu_ws2_r1");
        bool ringed = false;
        for (int i = 0; i < overhead.graphCount(); ++i) {
            const QCPGraph* g = overhead.graph(i);
            ringed |= g->name() == "selection" && g->visible() && g->dataCount() == 1 &&
                      g->data()->at(0)->key == 2 && std::abs(g->data()->at(0)->value - 11) < 1e-9;
        }
        QVERIFY(ringed);
        const QString tip = widgets::toolTipAt(overhead, "overhead_vs_world_size", d, at);
        QVERIFY2(tip.contains("median of 4 repeats") && tip.contains("r1 30.00") &&
                     tip.contains("r3 failed"),
                 qPrintable(tip));

        // The bars: one per world size; the stack reaches the median step (60 ms at 2 ranks),
        // its whisker from 50 to 90 ms; the failed repeat's 500 ms is nowhere.
        QCustomPlot bars;
        draw(bars, "time_breakdown", d, {600, 400});
        QMap<double, double> tops;
        for (int i = 0; i < bars.plottableCount(); ++i) {
            if (auto* b = qobject_cast<QCPBars*>(bars.plottable(i))) {
                for (auto it = b->data()->begin(); it != b->data()->end(); ++it) {
                    tops[it->key] += it->value;
                }
            }
        }
        QCOMPARE(tops.size(), 2);
        QVERIFY2(std::abs(tops[1] - 60.0) < 1e-9, qPrintable(QString::number(tops[1])));
        QVERIFY(std::abs(tops[2] - 70.0) < 1e-9);
        QCPErrorBars* stepSpread = nullptr;
        for (int i = 0; i < bars.plottableCount(); ++i) {
            stepSpread = stepSpread ? stepSpread : qobject_cast<QCPErrorBars*>(bars.plottable(i));
        }
        QVERIFY(stepSpread);
        QVERIFY(std::abs(60.0 - stepSpread->data()->at(0).errorMinus - 50.0) < 1e-9);
        QVERIFY(std::abs(60.0 + stepSpread->data()->at(0).errorPlus - 90.0) < 1e-9);
        QVERIFY(bars.yAxis->range().upper < 500); // the failed repeat is no value
        const QPointF bar(bars.xAxis->coordToPixel(1), bars.yAxis->coordToPixel(30));
        QCOMPARE(widgets::cellAt(bars, "time_breakdown", d, bar), QString("m_gloo_cpu_ws2_r2"));
    }

    // Issue 52: a sweep's repeats are one line per kind, as the DDP figures draw a group: the
    // repeats' median busbw at each size, whiskers to their min and max (worked out here from
    // each repeat's points), each name once in the legend; a click on the median picks the repeat
    // nearest it, and selecting any repeat marks the group's line. "Each repeat" draws each.
    void aSweepsRepeatsAreOneLineWithTheirSpread() {
        auto data = synthetic({2}, 1e5, 4e6);
        addSweepRepeat(data, 1, 0.5); // twice the bandwidth
        addSweepRepeat(data, 2, 2.0); // half of it
        const QStringList repeats{"sweep_gloo_cpu_ws2_r0", "sweep_gloo_cpu_ws2_r1",
                                  "sweep_gloo_cpu_ws2_r2"};
        const auto linesOf = [](const QCustomPlot& plot) {
            QMultiMap<QString, QCPGraph*> lines;
            for (int i = 0; i < plot.graphCount(); ++i) {
                if (plot.graph(i)->dataCount() > 0 && plot.graph(i)->name() != "selection") {
                    lines.insert(plot.graph(i)->name(), plot.graph(i));
                }
            }
            return lines;
        };
        const auto legendOf = [](const QCustomPlot& plot) {
            QStringList entries;
            for (int i = 0; i < plot.legend->itemCount(); ++i) {
                if (auto* item = qobject_cast<QCPPlottableLegendItem*>(plot.legend->item(i))) {
                    entries << item->plottable()->name();
                }
            }
            return entries;
        };
        QCustomPlot plot;
        draw(plot, "sweep_bandwidth", data, {900, 600});
        const auto lines = linesOf(plot);
        QCOMPARE(lines.size(), 2); // two kinds, one line each
        for (const QString kind : {"all_reduce", "broadcast"}) {
            const QString name = "gloo_cpu ws2 " + kind;
            QCOMPARE(lines.count(name), 1);
            const QCPGraph* g = lines.value(name);
            QCOMPARE(g->property("cellId").toString(), repeats.front());
            const QCPErrorBars* whiskers = nullptr;
            for (int i = 0; i < plot.plottableCount(); ++i) {
                auto* bars = qobject_cast<QCPErrorBars*>(plot.plottable(i));
                whiskers = bars && bars->dataPlottable() == g ? bars : whiskers;
            }
            QVERIFY2(whiskers, qPrintable(name));
            const auto& first = seriesOf(data, repeats[0], kind).points;
            QCOMPARE(g->dataCount(), int(first.size()));
            for (int i = 0; i < g->dataCount(); ++i) {
                std::vector<double> busbw;
                for (const QString& r : repeats) {
                    busbw.push_back(*seriesOf(data, r, kind).points[std::size_t(i)].busbwGBps);
                }
                std::ranges::sort(busbw);
                QCOMPARE(g->data()->at(i)->key, first[std::size_t(i)].bytes);
                QVERIFY(std::abs(g->data()->at(i)->value - busbw[1]) < 1e-9 * busbw[1]);
                QVERIFY(std::abs(whiskers->data()->at(i).errorMinus - (busbw[1] - busbw[0])) <
                        1e-9 * busbw[1]);
                QVERIFY(std::abs(whiskers->data()->at(i).errorPlus - (busbw[2] - busbw[1])) <
                        1e-9 * busbw[1]);
            }
        }
        QStringList entries = legendOf(plot);
        QCOMPARE(entries.count("gloo_cpu ws2 all_reduce"), 1);
        QCOMPARE(entries.count("gloo_cpu ws2 broadcast"), 1);
        QVERIFY2(entries.contains("median; whiskers: min to max of 3 repeats"),
                 qPrintable(entries.join(" | ")));
        // The median's point picks the repeat nearest it, and hovering names the spread.
        const QCPGraph* allReduce = lines.value("gloo_cpu ws2 all_reduce");
        const QPointF median(plot.xAxis->coordToPixel(allReduce->data()->at(2)->key),
                             plot.yAxis->coordToPixel(allReduce->data()->at(2)->value));
        QCOMPARE(widgets::cellAt(plot, "sweep_bandwidth", data, median), repeats[0]);
        QVERIFY(widgets::toolTipAt(plot, "sweep_bandwidth", data, median)
                    .contains("median busbw of 3 repeats"));
        // Selecting the slowest repeat marks its group's median line, a mark per kind.
        widgets::highlightCell(plot, "sweep_bandwidth", data, repeats[2]);
        int marked = 0;
        for (int i = 0; i < plot.graphCount(); ++i) {
            const QCPGraph* g = plot.graph(i);
            if (g->name() == "selection" && g->visible() && g->dataCount() > 0) {
                ++marked;
                QCOMPARE(g->dataCount(), allReduce->dataCount());
                QCOMPARE(g->data()->at(2)->value, allReduce->data()->at(2)->value);
            }
        }
        QCOMPARE(marked, 2);

        // Each repeat: a line each, each name still once in the legend, no whiskers; a click on
        // the slowest repeat's own point picks it.
        QCustomPlot each;
        widgets::setFigureSize(each, {900, 600});
        widgets::figureNamed("sweep_bandwidth")->draw(each, data, {.eachRepeat = true});
        widgets::placeLegend(each);
        QCOMPARE(linesOf(each).size(), 6);
        entries = legendOf(each);
        QCOMPARE(entries.count("gloo_cpu ws2 all_reduce"), 1);
        QVERIFY(!entries.join(" ").contains("whiskers"));
        const auto& slowest = seriesOf(data, repeats[2], "all_reduce").points[2];
        const QPointF own(each.xAxis->coordToPixel(slowest.bytes),
                          each.yAxis->coordToPixel(*slowest.busbwGBps));
        QCOMPARE(widgets::cellAt(each, "sweep_bandwidth", data, own), repeats[2]);

        // Issue 52 (audit): the note under the axes named a world-size-1 sweep's kind once per
        // repeat ("gloo_cpu ws1 (all_reduce, all_reduce, all_reduce)").
        auto one = synthetic({2}, 1e5, 4e6);
        for (store::CellRow& c : one.cells) {
            c.worldSize = c.isSweep() ? 1 : c.worldSize; // synthetic() sweeps two ranks or more
        }
        addSweepRepeat(one);
        QStringList notes;
        QVERIFY(widgets::sweepLines(one, &notes).empty());
        QCOMPARE(notes.size(), 1);
        QVERIFY2(notes.front().count("all_reduce") == 1 && notes.front().count("broadcast") == 1,
                 qPrintable(notes.front()));
    }

    // Issue 29 item 17: the kinds of one sweep cell share its colour; each has a marker of its
    // own besides its dash, and the size axis says its unit once (on the ticks).
    void sweepKindsHaveTheirOwnMarkers() {
        QCustomPlot plot;
        draw(plot, "sweep_bandwidth", real_, {900, 500});
        QVERIFY(!plot.xAxis->label().contains("bytes"));
        QMap<QString, QSet<int>> shapes;
        QMap<QString, int> lines;
        for (int i = 0; i < plot.graphCount(); ++i) {
            const QString cell = plot.graph(i)->property("cellId").toString();
            if (!cell.isEmpty()) {
                shapes[cell].insert(int(plot.graph(i)->scatterStyle().shape()));
                ++lines[cell];
            }
        }
        QVERIFY(!lines.isEmpty());
        bool severalKinds = false;
        for (auto it = lines.begin(); it != lines.end(); ++it) {
            QCOMPARE(shapes[it.key()].size(), it.value());
            severalKinds = severalKinds || it.value() > 1;
        }
        QVERIFY(severalKinds);
    }

    // Issue 29 item 14: a ratio that was not judged (world size 1) is an outline of its own,
    // not a bar in its layer's colour; the tolerance lines are in the legend.
    void anUnjudgedRatioIsNoDisagreement() {
        auto data = real_;
        const QString id = "mlp2m_gloo_cpu_ws1_r0";
        for (auto& c : data.cells) {
            if (c.id == id) {
                // As the analysis records a one-rank cell whose instruments differ.
                c.hookTraceAgreement = 1.6;
                c.agreementFlagged = false;
                c.agreementReason = "not judged at world size 1";
            }
        }
        QCustomPlot plot;
        draw(plot, "hook_trace_agreement", data, {600, 400});
        const auto cells = widgets::axisCells(data);
        double key = 0;
        for (std::size_t i = 0; i < cells.size(); ++i) {
            key = cells[i]->id == id ? double(i + 1) : key;
        }
        QVERIFY(key > 0);
        int outlined = 0;
        for (int i = 0; i < plot.plottableCount(); ++i) {
            auto* b = qobject_cast<QCPBars*>(plot.plottable(i));
            if (!b) {
                continue;
            }
            const auto at = b->data()->findBegin(key);
            if (at == b->data()->end() || at->key != key) {
                continue;
            }
            QVERIFY2(b->name().startsWith("not judged"), qPrintable(b->name()));
            QCOMPARE(b->brush().style(), Qt::NoBrush);
            ++outlined;
        }
        QCOMPARE(outlined, 1);
        bool toleranceListed = false;
        for (int i = 0; i < plot.legend->itemCount(); ++i) {
            if (auto* item = qobject_cast<QCPPlottableLegendItem*>(plot.legend->item(i))) {
                toleranceListed = toleranceListed || item->plottable()->name().contains("10 %");
            }
        }
        QVERIFY(toleranceListed);
    }

    // Issue 29: a figure with nothing to draw says so instead of showing bare 0-5 axes.
    // Bars run in the order of their settings' values, numbers by value: the cells come in their
    // ids' text order, where cap 25 sorts before 2 and 4 (audit of issue 52). A figure with
    // nothing to draw marks no bar of the selected cell.
    void barsRunInTheirSettingsOrder() {
        report::ReportData d;
        for (const QString cap : {"0.25", "0.5", "1", "25", "2", "4"}) {
            store::CellRow c;
            c.id = "m_gloo_cpu_ws2_cap" + cap + "_r0";
            c.status = "complete";
            c.model = "m";
            c.layer = "gloo_cpu";
            c.worldSize = 2;
            c.computeMs = c.exposedCommMs = c.bookkeepingMs = c.stepMs = 1.0;
            c.axes = {{"model", "m"},
                      {"layer", "gloo_cpu"},
                      {"world_size", "2"},
                      {"bucket_cap_mb", cap},
                      {"repeat", "0"}};
            d.cells.push_back(c);
        }
        QCustomPlot bars;
        draw(bars, "time_breakdown", d, {600, 400});
        auto* ticker = dynamic_cast<QCPAxisTickerText*>(bars.xAxis->ticker().data());
        QVERIFY(ticker);
        QCOMPARE(ticker->ticks().values(), (QList<QString>{"0.25", "0.5", "1", "2", "4", "25"}));

        for (store::CellRow& c : d.cells) {
            c.computeMs = c.exposedCommMs = c.bookkeepingMs = c.stepMs = std::nullopt;
        }
        QCustomPlot empty;
        draw(empty, "time_breakdown", d, {600, 400});
        QVERIFY(empty.findChild<QCPItemText*>("empty"));
        widgets::highlightCell(empty, "time_breakdown", d, d.cells.front().id);
        QVERIFY(!empty.findChild<QCPItemRect*>("selection"));
    }

    // Issue 52 (audit): a study's figures at scale. Two models x two hooks x four caps at 1 and
    // 2 ranks: 16 series and 32 bars, more than one panel reads. Each figure has a panel per
    // model, named above it, holding its model's series and bars alone; a setting's bars at 1
    // and 2 ranks stand side by side over one label (the cap; the hook names their run), 1 rank
    // left and paler; every label is shown. A click on a bar or a point of the second panel
    // picks that cell, whose mark is drawn in that panel. Where each cell belongs is worked out
    // here from its settings, apart from the figures.
    void aStudyHasAPanelPerModel() {
        report::ReportData d;
        const QStringList models{"m_one", "m_two"}, hooks{"allreduce", "powersgd"},
            caps{"0.5", "1", "4", "25"};
        for (const QString& model : models) {
            for (const QString& hook : hooks) {
                for (const QString& cap : caps) {
                    for (const int ws : {1, 2}) {
                        store::CellRow c = studyCell(model, hook, cap, ws);
                        c.commOverheadFraction =
                            0.01 * ws + 0.001 * cap.toDouble() + 0.1 * hooks.indexOf(hook);
                        c.computeMs = model == "m_one" ? 100.0 : 300.0;
                        c.exposedCommMs = ws * cap.toDouble();
                        c.bookkeepingMs = 1.0;
                        c.stepMs = *c.computeMs + *c.exposedCommMs + 1.0;
                        c.hookTraceAgreement = 1.0;
                        d.cells.push_back(c);
                    }
                }
            }
        }
        const auto panelsOf = [](QCustomPlot& plot) {
            QStringList names;
            for (QCPAxisRect* rect : plot.axisRects()) {
                names << rect->property("facetName").toString();
            }
            names.sort(); // QCustomPlot lists them from its layout's last element
            return names;
        };
        QCustomPlot bars;
        draw(bars, "time_breakdown", d, {900, 600});
        bars.replot(QCustomPlot::rpImmediateRefresh);
        QCOMPARE(panelsOf(bars), models);
        for (int p = 0; p < models.size(); ++p) {
            QCPAxisRect* rect = widgets::facetRect(bars, models[p]);
            QCPAxis* axis = rect->axis(QCPAxis::atBottom);
            auto* ticker = dynamic_cast<QCPAxisTickerText*>(axis->ticker().data());
            QVERIFY(ticker);
            QCOMPARE(ticker->ticks().values(), caps + caps); // a run of the caps per hook
            QCOMPARE(axis->tickVector().size(), 8);          // every label shown
            for (const store::CellRow& c : d.cells) {
                if (c.model != models[p]) {
                    continue;
                }
                // The label of its hook and cap; 1 rank left of it, 2 ranks right.
                const int label = int(hooks.indexOf(c.axes.value("hook").toString()) * 4 +
                                      caps.indexOf(c.axes.value("bucket_cap_mb").toString()) + 1);
                double key = 0, top = 0;
                for (int i = 0; i < bars.plottableCount(); ++i) {
                    auto* b = qobject_cast<QCPBars*>(bars.plottable(i));
                    if (!b || b->keyAxis() != axis) {
                        continue;
                    }
                    for (auto it = b->data()->begin(); it != b->data()->end(); ++it) {
                        const bool side = c.worldSize == 1 ? it->key < label : it->key > label;
                        if (side && std::abs(it->key - label) < 0.45) {
                            key = it->key;
                            top += it->value;
                        }
                    }
                }
                QVERIFY2(key > 0, qPrintable(c.id));
                QVERIFY2(std::abs(top - *c.stepMs) < 1e-9, qPrintable(c.id));
                const QPointF at(axis->coordToPixel(key),
                                 rect->axis(QCPAxis::atLeft)->coordToPixel(*c.stepMs / 2));
                QCOMPARE(widgets::cellAt(bars, "time_breakdown", d, at), c.id);
                // Picked from the bars as drawn, kept with the figure: a mouse move neither
                // groups nor sorts the cells again (it is given none here).
                QCOMPARE(widgets::cellAt(bars, "time_breakdown", report::ReportData{}, at), c.id);
            }
        }
        const QString picked = "m_two_gloo_cpu_ws1_cap4_powersgd_r0";
        widgets::highlightCell(bars, "time_breakdown", d, picked);
        int boxes = 0;
        for (int i = 0; i < bars.itemCount(); ++i) {
            auto* r = qobject_cast<QCPItemRect*>(bars.item(i));
            if (r && r->objectName() == "selection" && r->visible()) {
                ++boxes;
                QCOMPARE(r->clipAxisRect(), widgets::facetRect(bars, "m_two"));
                // 1 rank: the left half of label 7 (powersgd's third cap)
                QVERIFY(r->topLeft->coords().x() > 6.5 && r->bottomRight->coords().x() < 7.001);
            }
        }
        QCOMPARE(boxes, 1);
        const QStringList legend = widgets::legendNames(bars);
        QVERIFY2(legend.count("compute") == 1, qPrintable(legend.join(" | ")));
        QCOMPARE(widgets::facetRect(bars, "m_two")->axis(QCPAxis::atBottom)->label(),
                 QString("bucket_cap_mb (pale: 1 rank)"));

        QCustomPlot overhead;
        draw(overhead, "overhead_vs_world_size", d, {900, 600});
        QCOMPARE(panelsOf(overhead), models);
        for (int p = 0; p < models.size(); ++p) {
            QCPAxisRect* rect = widgets::facetRect(overhead, models[p]);
            int series = 0;
            for (int i = 0; i < overhead.graphCount(); ++i) {
                const QCPGraph* g = overhead.graph(i);
                if (g->dataCount() > 0 && g->keyAxis()->axisRect() == rect) {
                    QVERIFY2(g->name().startsWith(models[p] + " "), qPrintable(g->name()));
                    ++series;
                }
            }
            QCOMPARE(series, 8); // its hooks and caps
        }
        const store::CellRow* two = widgets::findCell(d, "m_two_gloo_cpu_ws2_cap25_allreduce_r0");
        QCPAxisRect* second = widgets::facetRect(overhead, "m_two");
        const QPointF at(
            second->axis(QCPAxis::atBottom)->coordToPixel(2),
            second->axis(QCPAxis::atLeft)->coordToPixel(*two->commOverheadFraction * 100.0));
        QCOMPARE(widgets::cellAt(overhead, "overhead_vs_world_size", d, at), two->id);
        widgets::highlightCell(overhead, "overhead_vs_world_size", d, two->id);
        bool ringed = false;
        for (int i = 0; i < overhead.graphCount(); ++i) {
            const QCPGraph* g = overhead.graph(i);
            ringed |= g->name() == "selection" && g->visible() && g->dataCount() == 1 &&
                      g->keyAxis()->axisRect() == second;
        }
        QVERIFY(ringed);
    }

    // Where one panel's bars cannot stand side by side (two of its cells the axes do not tell
    // apart), no panel's do, and every panel's bars run in the settings' order, as one panel's
    // would: the first panel's were moved into the order of their places before the second was
    // asked, and drawn in it (two layers: 1 rank's bars of each layer, then 2 ranks', became
    // each layer's 1 and 2 ranks). The order is axisGroups', the bars' read back by clicks.
    void panelsThatCannotPairKeepTheSettingsOrder() {
        report::ReportData d;
        const auto add = [&d](const QString& model, const QString& layer, const QString& hook,
                              const QString& cap, int ws, const QString& recordedLayer) {
            store::CellRow c;
            c.id = QString("%1_%2_ws%3_cap%4_%5_r0").arg(model, layer).arg(ws).arg(cap, hook);
            c.status = "complete";
            c.model = model;
            c.layer = layer;
            c.worldSize = ws;
            c.computeMs = 10.0 * ws;
            c.exposedCommMs = cap.toDouble();
            c.bookkeepingMs = 1.0;
            c.stepMs = *c.computeMs + *c.exposedCommMs + 1.0;
            c.axes = {
                {"model", model}, {"layer", recordedLayer}, {"world_size", QString::number(ws)},
                {"hook", hook},   {"bucket_cap_mb", cap},   {"repeat", "0"}};
            d.cells.push_back(c);
        };
        for (const QString hook : {"allreduce", "powersgd"}) {
            for (const QString cap : {"1", "4"}) {
                for (const int ws : {1, 2}) {
                    for (const QString layer : {"gloo_cpu", "gloo_tcp"}) {
                        add("m_one", layer, hook, cap, ws, layer);
                    }
                    add("m_two", "gloo_cpu", hook, cap, ws, "gloo_cpu");
                }
            }
        }
        // A cell of another layer whose settings say gloo_cpu: the same bar's place as one.
        add("m_two", "gloo_shm", "allreduce", "1", 1, "gloo_cpu");
        QVERIFY(widgets::axisGroups(d).size() > 24); // more bars than one panel names
        QCustomPlot bars;
        draw(bars, "time_breakdown", d, {900, 600});
        bars.replot(QCustomPlot::rpImmediateRefresh);
        for (const QString model : {"m_one", "m_two"}) {
            QStringList want;
            for (const report::RepeatGroup& g : widgets::axisGroups(d)) {
                if (g.first().model == model) {
                    want << g.first().id;
                }
            }
            QCPAxisRect* rect = widgets::facetRect(bars, model);
            QCOMPARE(rect->property("facetName").toString(), model);
            QStringList drawn;
            for (int key = 1; key <= want.size(); ++key) {
                const QPointF at(rect->axis(QCPAxis::atBottom)->coordToPixel(key),
                                 rect->axis(QCPAxis::atLeft)->coordToPixel(1.0));
                drawn << widgets::cellAt(bars, "time_breakdown", d, at);
            }
            QCOMPARE(drawn, want);
        }
    }

    // The agreement figure's legend names every layer, whichever world sizes it ran at: a
    // layer's bars side by side are a shade per world size, and the largest's named the layers,
    // so a layer that ran only at the smaller ones had no entry. Each layer is named once.
    void theAgreementLegendNamesEveryLayer() {
        report::ReportData d;
        QSet<QString> layers;
        for (const QString layer : {"gloo_cpu", "nccl_cuda"}) {
            for (const int ws : {2, 4}) {
                if (layer == "nccl_cuda" && ws == 4) {
                    continue; // one card short of four
                }
                for (const QString hook : {"allreduce", "powersgd"}) {
                    for (const QString cap : {"0.5", "1", "4", "16", "25"}) {
                        store::CellRow c;
                        c.id = QString("m_%1_ws%2_cap%3_%4_r0").arg(layer).arg(ws).arg(cap, hook);
                        c.status = "complete";
                        c.model = "m";
                        c.layer = layer;
                        c.worldSize = ws;
                        c.hookTraceAgreement = 1.0 + 0.01 * ws;
                        c.axes = {{"model", "m"},
                                  {"layer", layer},
                                  {"world_size", QString::number(ws)},
                                  {"hook", hook},
                                  {"bucket_cap_mb", cap},
                                  {"repeat", "0"}};
                        d.cells.push_back(c);
                        layers.insert(layer);
                    }
                }
            }
        }
        QVERIFY(widgets::axisGroups(d).size() > 24); // world sizes side by side
        QCustomPlot plot;
        draw(plot, "hook_trace_agreement", d, {900, 600});
        QVERIFY2(plot.xAxis->label().contains("pale"), qPrintable(plot.xAxis->label()));
        const QStringList legend = widgets::legendNames(plot);
        for (const QString& layer : layers) {
            QVERIFY2(legend.count(layer) == 1, qPrintable(layer + ": " + legend.join(" | ")));
        }
    }

    // Seven models' series, more than one panel reads: a panel per model however many models
    // (past three they all went into one panel, 56 series in one tangle), in no more than three
    // rows of columns, narrow as the figure is. Each panel holds its own model's series. The bar
    // figures keep one panel past three models (kMostBarPanels: their panels need their labels'
    // width).
    void manyModelsHaveAPanelEachInThreeRows() {
        report::ReportData d;
        QStringList models;
        for (int m = 0; m < 7; ++m) {
            models << QString("mlp_%1").arg(QChar('a' + m));
            for (const QString hook : {"allreduce", "powersgd"}) {
                for (const QString cap : {"1", "4", "25"}) {
                    for (const int ws : {1, 2}) {
                        store::CellRow c = studyCell(models.back(), hook, cap, ws);
                        c.commOverheadFraction = 0.01 * ws * (m + 1) + 0.001 * cap.toDouble();
                        c.computeMs = c.exposedCommMs = c.bookkeepingMs = 1.0;
                        c.stepMs = 3.0;
                        d.cells.push_back(c);
                    }
                }
            }
        }
        QCustomPlot plot;
        draw(plot, "overhead_vs_world_size", d, {230, 600}); // two panels abreast at most
        plot.replot(QCustomPlot::rpImmediateRefresh);
        QStringList panels;
        QSet<int> rows; // a row of panels shares its top
        for (QCPAxisRect* rect : plot.axisRects()) {
            const QString model = rect->property("facetName").toString();
            panels << model;
            rows.insert(rect->top());
            for (int i = 0; i < plot.graphCount(); ++i) {
                const QCPGraph* g = plot.graph(i);
                if (g->dataCount() > 0 && g->keyAxis()->axisRect() == rect) {
                    QVERIFY2(g->name().startsWith(model + " "), qPrintable(g->name()));
                }
            }
        }
        panels.sort();
        QCOMPARE(panels, models);
        QVERIFY2(rows.size() <= 3, qPrintable(QString("%1 rows").arg(rows.size())));
        QCustomPlot bars;
        draw(bars, "time_breakdown", d, {230, 600});
        QCOMPARE(bars.axisRects().size(), 1);
    }

    // A 3-model study's bars at the widths of the Results page's third at 1366x768: every run's
    // name on one line, all in one size. One model's steps ten times the others' gave its axis
    // a wider tick label, and "fp16_compress" over its run was broken into "fp16_" over
    // "compress" in that panel alone.
    void runNamesReadOnOneLineInEveryPanel() {
        report::ReportData d;
        for (const QString model : {"mlp_a", "mlp_b", "mlp_c"}) {
            for (const QString hook : {"allreduce", "fp16_compress", "local"}) {
                for (const QString cap : {"0.5", "1", "4", "16", "25"}) {
                    for (const int ws : {1, 2}) {
                        store::CellRow c = studyCell(model, hook, cap, ws);
                        c.computeMs = model == "mlp_b" ? 400.0 : 20.0;
                        c.exposedCommMs = ws * cap.toDouble();
                        c.bookkeepingMs = 1.0;
                        c.stepMs = *c.computeMs + *c.exposedCommMs + 1.0;
                        d.cells.push_back(c);
                    }
                }
            }
        }
        for (int width = 330; width <= 400; width += 5) {
            QCustomPlot plot;
            draw(plot, "time_breakdown", d, {width, 390});
            QCOMPARE(plot.axisRects().size(), 3);
            QSet<double> sizes;
            int names = 0;
            for (int i = 0; i < plot.itemCount(); ++i) {
                auto* t = qobject_cast<QCPItemText*>(plot.item(i));
                if (t && t->objectName() == "categoryRun") {
                    ++names;
                    QVERIFY2(!t->text().contains('\n'),
                             qPrintable(QString("%1 px: %2").arg(width).arg(t->text())));
                    QCOMPARE(t->text(), t->property("fullText").toString());
                    sizes.insert(t->font().pointSizeF());
                }
            }
            QCOMPARE(names, 9); // a run per hook in each panel
            QCOMPARE(sizes.size(), 1);
            QVERIFY(*sizes.begin() >= widgets::kLeastLabelPt);
        }
    }

    void anEmptyFigureSaysSo() {
        for (const auto& figure : widgets::reportFigures()) {
            for (const bool empty : {true, false}) {
                if (!empty && !figure.appliesTo(real_)) {
                    continue; // not about these results: it says so (the empty case)
                }
                QCustomPlot plot;
                draw(plot, figure.name, empty ? report::ReportData{} : real_, {600, 400});
                int messages = 0;
                for (int i = 0; i < plot.itemCount(); ++i) {
                    messages += plot.item(i)->objectName() == "empty";
                }
                QVERIFY2(messages == (empty ? 1 : 0),
                         qPrintable(QString("%1: %2 messages").arg(figure.name).arg(messages)));
            }
        }
    }

    void hoveringNamesTheCell() {
        QCustomPlot plot;
        draw(plot, "overhead_vs_world_size", real_, {600, 400});
        const store::CellRow* ws2 = widgets::findCell(real_, "mlp2m_gloo_cpu_ws2_r0");
        const QPointF at(plot.xAxis->coordToPixel(2),
                         plot.yAxis->coordToPixel(*ws2->commOverheadFraction * 100.0));
        const QString tip =
            widgets::toolTipAt(plot, "overhead_vs_world_size", real_, at + QPointF(3, 2));
        QVERIFY2(tip.startsWith("mlp2m_gloo_cpu_ws2_r0\n"), qPrintable(tip));
        QVERIFY(tip.contains(QString::number(*ws2->commOverheadFraction * 100.0, 'f', 2)));
        QVERIFY(widgets::toolTipAt(plot, "overhead_vs_world_size", real_, {2, 2}).isEmpty());
        QVERIFY2(tip.contains(" · 2 ranks"), qPrintable(tip));
        // One rank is "1 rank" (issue 29: "1 ranks").
        const store::CellRow* ws1 = widgets::findCell(real_, "mlp2m_gloo_cpu_ws1_r0");
        QVERIFY(ws1 && ws1->commOverheadFraction);
        const QString one = widgets::toolTipAt(
            plot, "overhead_vs_world_size", real_,
            QPointF(plot.xAxis->coordToPixel(1),
                    plot.yAxis->coordToPixel(*ws1->commOverheadFraction * 100.0)));
        QVERIFY2(one.contains(" · 1 rank") && !one.contains("1 ranks"), qPrintable(one));
    }
};

QTEST_MAIN(TstGuiPlots)
#include "tst_gui_plots.moc"
