#include "result_plots.h"

#include <qcustomplot.h>

#include <QMap>
#include <QSet>

namespace commprof::widgets {
namespace {

const QList<QColor> kPalette{QColor(31, 119, 180),  QColor(255, 127, 14), QColor(44, 160, 44),
                             QColor(148, 103, 189), QColor(140, 86, 75),  QColor(23, 190, 207)};
const QColor kFlagged(200, 30, 30);

void reset(QCustomPlot& plot, const QString& title, const QString& x, const QString& y) {
    plot.clearPlottables();
    plot.clearItems();
    plot.plotLayout()->clear();
    plot.plotLayout()->addElement(0, 0,
                                  new QCPTextElement(&plot, title, QFont("sans", 11, QFont::Bold)));
    plot.plotLayout()->addElement(1, 0, new QCPAxisRect(&plot));
    auto* rect = static_cast<QCPAxisRect*>(plot.plotLayout()->element(1, 0));
    plot.xAxis = rect->axis(QCPAxis::atBottom);
    plot.yAxis = rect->axis(QCPAxis::atLeft);
    plot.xAxis2 = rect->axis(QCPAxis::atTop);
    plot.yAxis2 = rect->axis(QCPAxis::atRight);
    plot.xAxis->setLabel(x);
    plot.yAxis->setLabel(y);
    plot.legend = new QCPLegend;
    rect->insetLayout()->addElement(plot.legend, Qt::AlignTop | Qt::AlignLeft);
    plot.legend->setLayer("legend");
    plot.legend->setVisible(true);
    plot.legend->setFont(QFont("sans", 8));
}

// Incomplete and failed cells: a red cross on the x axis, never a data point.
void addFlagged(QCustomPlot& plot, const QVector<double>& xs, const QString& label) {
    if (xs.isEmpty()) {
        return;
    }
    QCPGraph* g = plot.addGraph();
    g->setName(label);
    g->setLineStyle(QCPGraph::lsNone);
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCross, kFlagged, 10));
    g->setData(xs, QVector<double>(xs.size(), 0.0));
}

QString cellLabel(const store::CellRow& c) {
    return QString("%1 %2 ws%3").arg(c.model, c.layer).arg(c.worldSize);
}

} // namespace

void drawOverheadVsWorldSize(QCustomPlot& plot, const report::ReportData& data) {
    reset(plot, "Communication overhead vs world size", "world size (ranks)",
          "exposed communication / step (%)");
    QMap<QString, QMap<int, double>> series;
    QVector<double> flagged;
    for (const auto& c : data.cells) {
        if (c.complete() && c.commOverheadFraction) {
            series[c.model + " " + c.layer][c.worldSize] = *c.commOverheadFraction * 100.0;
        } else if (c.status == "incomplete" || c.status == "failed") {
            flagged << c.worldSize;
        }
    }
    int i = 0;
    for (auto it = series.begin(); it != series.end(); ++it, ++i) {
        QCPGraph* g = plot.addGraph();
        g->setName(it.key());
        g->setPen(QPen(kPalette[i % kPalette.size()], 2));
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 7));
        for (auto p = it->begin(); p != it->end(); ++p) {
            g->addData(p.key(), p.value());
        }
    }
    addFlagged(plot, flagged, "incomplete / failed (not data)");
    plot.xAxis->setScaleType(QCPAxis::stLogarithmic);
    plot.xAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    plot.rescaleAxes();
    plot.xAxis->scaleRange(1.3, plot.xAxis->range().center());
    plot.yAxis->setRangeLower(0);
    plot.yAxis->setRangeUpper(std::max(1.0, plot.yAxis->range().upper * 1.15));
}

void drawBucketTimeVsBytes(QCustomPlot& plot, const report::ReportData& data) {
    reset(plot, "Bucket all-reduce time vs bytes, with the alpha-beta fit", "bucket size (MiB)",
          "all-reduce time (ms)");
    int i = 0;
    for (auto it = data.byLayer.begin(); it != data.byLayer.end(); ++it, ++i) {
        const QColor colour = kPalette[i % kPalette.size()];
        QCPGraph* points = plot.addGraph();
        points->setName(it.key() + " buckets");
        points->setLineStyle(QCPGraph::lsNone);
        points->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, colour, 4));
        QSet<int> worldSizes;
        double maxBytes = 0;
        for (const auto& s : it->samples) {
            points->addData(s.bytes / 1048576.0, s.seconds * 1e3);
            worldSizes.insert(s.worldSize);
            maxBytes = std::max(maxBytes, s.bytes);
        }
        if (!it->fit) {
            continue;
        }
        for (int p : worldSizes) {
            if (p < 2) {
                continue;
            }
            QCPGraph* line = plot.addGraph();
            line->setName(QString("%1 fit, %2 ranks (R² %3)")
                              .arg(it.key())
                              .arg(p)
                              .arg(it->fit->r2, 0, 'f', 2));
            line->setPen(QPen(colour, 1.5, Qt::DashLine));
            for (int k = 0; k <= 20; ++k) {
                const double bytes = maxBytes * k / 20.0;
                line->addData(bytes / 1048576.0, it->fit->predict(bytes, p) * 1e3);
            }
        }
    }
    plot.rescaleAxes();
    plot.xAxis->setRangeLower(0);
    plot.yAxis->setRangeLower(0);
}

void drawStackedBreakdown(QCustomPlot& plot, const report::ReportData& data) {
    reset(plot, "Per-step time by kind (median step, rank 0 trace)", "cell", "ms per step");
    auto ticker = QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText);
    QVector<double> keys, compute, exposed, bookkeeping;
    QVector<double> flagged;
    double x = 1;
    for (const store::CellRow* cp : axisCells(data)) {
        const store::CellRow& c = *cp;
        if (c.complete() && c.computeMs && c.exposedCommMs) {
            keys << x;
            compute << *c.computeMs;
            exposed << *c.exposedCommMs;
            bookkeeping << c.bookkeepingMs.value_or(0.0);
            ticker->addTick(x, cellLabel(c));
        } else {
            flagged << x;
            ticker->addTick(x, cellLabel(c) + "\n(" + c.status + ")");
        }
        x += 1;
    }
    auto bars = [&](const QString& name, const QVector<double>& values, const QColor& colour) {
        auto* b = new QCPBars(plot.xAxis, plot.yAxis);
        b->setName(name);
        b->setBrush(colour);
        b->setPen(QPen(colour.darker(130)));
        b->setWidth(0.6);
        b->setData(keys, values);
        return b;
    };
    QCPBars* c1 = bars("compute", compute, kPalette[0]);
    QCPBars* c2 = bars("exposed communication", exposed, kPalette[1]);
    QCPBars* c3 = bars("bookkeeping", bookkeeping, kPalette[2]);
    c2->moveAbove(c1);
    c3->moveAbove(c2);
    addFlagged(plot, flagged, "incomplete / failed (not data)");
    plot.xAxis->setTicker(ticker);
    plot.xAxis->setTickLabelRotation(30);
    plot.xAxis->setRange(0, x);
    plot.rescaleAxes(true);
    plot.xAxis->setRange(0, x);
    plot.yAxis->setRangeLower(0);
    plot.yAxis->setRangeUpper(std::max(1.0, plot.yAxis->range().upper * 1.2));
}

void drawAgreement(QCustomPlot& plot, const report::ReportData& data) {
    reset(plot, "Comm hook vs trace: communication per step", "cell", "trace / hook");
    auto ticker = QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText);
    QVector<double> keys, values, flaggedKeys;
    double x = 1;
    for (const store::CellRow* cp : axisCells(data)) {
        const store::CellRow& c = *cp;
        ticker->addTick(x, cellLabel(c));
        if (c.complete() && c.hookTraceAgreement) {
            keys << x;
            values << *c.hookTraceAgreement;
        } else {
            flaggedKeys << x;
        }
        x += 1;
    }
    auto* b = new QCPBars(plot.xAxis, plot.yAxis);
    b->setName("trace comm / hook comm");
    b->setBrush(kPalette[0]);
    b->setWidth(0.5);
    b->setData(keys, values);
    for (double level : {0.9, 1.0, 1.1}) {
        auto* line = new QCPItemStraightLine(&plot);
        line->point1->setCoords(0, level);
        line->point2->setCoords(1, level);
        line->setPen(QPen(level == 1.0 ? Qt::darkGray : kFlagged, 1,
                          level == 1.0 ? Qt::SolidLine : Qt::DashLine));
    }
    addFlagged(plot, flaggedKeys, "incomplete / failed (not data)");
    plot.xAxis->setTicker(ticker);
    plot.xAxis->setTickLabelRotation(30);
    plot.xAxis->setRange(0, x);
    plot.yAxis->setRange(0, 1.5);
}

std::vector<const store::CellRow*> axisCells(const report::ReportData& data) {
    std::vector<const store::CellRow*> out;
    for (const auto& c : data.cells) {
        if (c.status != "skipped_infeasible") {
            out.push_back(&c);
        }
    }
    return out;
}

void highlightCell(QCustomPlot& plot, const char* figure, const report::ReportData& data,
                   const QString& cellId) {
    for (int i = plot.graphCount() - 1; i >= 0; --i) {
        if (plot.graph(i)->name() == "selection") {
            plot.removeGraph(i);
        }
    }
    for (int i = plot.itemCount() - 1; i >= 0; --i) {
        if (plot.item(i)->objectName() == "selection") {
            plot.removeItem(i);
        }
    }
    const store::CellRow* cell = nullptr;
    for (const auto& c : data.cells) {
        if (c.id == cellId) {
            cell = &c;
        }
    }
    if (cell) {
        const QString name(figure);
        QCPGraph* g = nullptr;
        auto mark = [&] {
            g = plot.addGraph();
            g->setName("selection");
            g->setLineStyle(QCPGraph::lsNone);
            g->setScatterStyle(
                QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(Qt::black, 2.5), Qt::NoBrush, 14));
            g->removeFromLegend();
        };
        if (name == "overhead_vs_world_size") {
            mark();
            g->addData(cell->worldSize, cell->complete() && cell->commOverheadFraction
                                            ? *cell->commOverheadFraction * 100.0
                                            : 0.0);
        } else if (name == "bucket_time_vs_bytes") {
            mark();
            for (const auto& s : data.bucketsByCell.value(cellId)) {
                g->addData(s.bytes / 1048576.0, s.seconds * 1e3);
            }
        } else {
            const auto cells = axisCells(data);
            for (std::size_t i = 0; i < cells.size(); ++i) {
                if (cells[i]->id == cellId) {
                    auto* box = new QCPItemRect(&plot);
                    box->setObjectName("selection");
                    box->topLeft->setCoords(double(i) + 1 - 0.45, plot.yAxis->range().upper * 0.98);
                    box->bottomRight->setCoords(double(i) + 1 + 0.45, plot.yAxis->range().lower);
                    box->setPen(QPen(Qt::black, 2.5, Qt::DashLine));
                }
            }
        }
    }
    plot.replot();
}

QString cellAt(const QCustomPlot& plot, const char* figure, const report::ReportData& data,
               QPointF pos) {
    const QString name(figure);
    const double x = plot.xAxis->pixelToCoord(pos.x());
    const double y = plot.yAxis->pixelToCoord(pos.y());
    QString best;
    double bestDist = 20.0; // pixels
    auto consider = [&](const QString& id, double cx, double cy) {
        const double dx = plot.xAxis->coordToPixel(cx) - pos.x();
        const double dy = plot.yAxis->coordToPixel(cy) - pos.y();
        const double d = std::sqrt(dx * dx + dy * dy);
        if (d < bestDist) {
            bestDist = d;
            best = id;
        }
    };
    if (name == "overhead_vs_world_size") {
        for (const auto& c : data.cells) {
            if (c.status != "skipped_infeasible") {
                consider(c.id, c.worldSize,
                         c.complete() && c.commOverheadFraction ? *c.commOverheadFraction * 100.0
                                                                : 0.0);
            }
        }
    } else if (name == "bucket_time_vs_bytes") {
        for (auto it = data.bucketsByCell.begin(); it != data.bucketsByCell.end(); ++it) {
            for (const auto& s : *it) {
                consider(it.key(), s.bytes / 1048576.0, s.seconds * 1e3);
            }
        }
    } else {
        const auto cells = axisCells(data);
        const long i = std::lround(x) - 1;
        (void)y;
        if (i >= 0 && i < long(cells.size()) && std::abs(x - double(i + 1)) < 0.45) {
            best = cells[std::size_t(i)]->id;
        }
    }
    return best;
}

const std::vector<FigureSpec>& reportFigures() {
    static const std::vector<FigureSpec> figures{
        {"overhead_vs_world_size", drawOverheadVsWorldSize},
        {"bucket_time_vs_bytes", drawBucketTimeVsBytes},
        {"time_breakdown", drawStackedBreakdown},
        {"hook_trace_agreement", drawAgreement},
    };
    return figures;
}

} // namespace commprof::widgets
