// SPDX-License-Identifier: GPL-3.0-or-later
#include "sweep_plot.h"

#include "readable_ticker.h"
#include "report/series_names.h"
#include "result_plots.h"
#include "trace/trace_input.h"

#include <qcustomplot.h>

#include <QMap>
#include <QSet>

#include <algorithm>
#include <cmath>
#include <map>

namespace commprof::widgets {
namespace {

constexpr double kDefaultMinBytes = 8;
constexpr double kDefaultMaxBytes = 4194304;

// The kinds in the order nccl-tests lists them; each has its own dash, all_reduce solid.
const QStringList kKinds{"all_reduce", "all_gather", "reduce_scatter", "broadcast"};

int kindOrder(const QString& kind) {
    const auto i = kKinds.indexOf(kind);
    return i < 0 ? int(kKinds.size()) : int(i);
}

Qt::PenStyle kindDash(const QString& kind) {
    static const Qt::PenStyle dashes[] = {Qt::SolidLine, Qt::DashLine, Qt::DashDotLine, Qt::DotLine,
                                          Qt::DashDotDotLine}; // the last: any other
    return dashes[kindOrder(kind)];
}

// The layer's colour, darker for each further world size: a layer stays one hue, and
// neighbouring world sizes differ by more than a shade.
QColor worldSizeShade(const QColor& layer, int index) {
    static const int kDarker[] = {100, 185, 135, 240};
    return layer.darker(kDarker[std::max(0, index) % 4]);
}

QString sizeLabel(double bytes) {
    return QString::fromStdString(trace::formatByteSize(std::uint64_t(std::llround(bytes))));
}

// Ticks at powers of two, labelled in binary units, every so many doublings that the labels fit
// the axis as it is now laid out (a replot after a resize asks again).
class SizeTicker : public ClearLabels<QCPAxisTicker> {
public:
    using ClearLabels::ClearLabels;

protected:
    QVector<double> createTickVector(double, const QCPRange& range) override {
        const double labelPx =
            QFontMetricsF(axis_->tickLabelFont()).horizontalAdvance("512 KiB") + kTickLabelGapPx;
        const int room = std::max(2, int(double(axis_->axisRect()->width()) / labelPx));
        const int first = int(std::ceil(std::log2(range.lower)));
        const int last = int(std::floor(std::log2(range.upper)));
        // Doublings per tick: a step that divides 10 puts ticks on KiB and MiB boundaries.
        int step = 1;
        for (const int s : {1, 2, 5, 10, 20, 30}) {
            step = s;
            if ((last - first) / s + 1 <= room) {
                break;
            }
        }
        QVector<double> ticks;
        for (int k = first; k <= last; ++k) {
            if (k % step == 0) {
                ticks << std::ldexp(1.0, k);
            }
        }
        return ticks;
    }
    QString getTickLabel(double tick, const QLocale&, QChar, int) override {
        return sizeLabel(tick);
    }
    int getSubTickCount(double) override { return 0; }

private:
    static constexpr double kTickLabelGapPx = 14;
};

// Decade ticks on a log axis, as many decades apart as the axis' height needs for its labels
// not to touch (asked again at each replot, so a resize re-spaces them).
class DecadeTicker : public ClearLabels<QCPAxisTickerLog> {
public:
    using ClearLabels::ClearLabels; // QCPAxisTickerLog's base 10 and 8 sub-ticks

protected:
    QVector<double> createTickVector(double tickStep, const QCPRange& range) override {
        const double rowPx = QFontMetricsF(axis_->tickLabelFont()).height() * kRowsPerLabel;
        const int room = std::max(2, int(double(axis_->axisRect()->height()) / rowPx));
        const int decades = int(std::ceil(std::log10(range.upper / range.lower)));
        setTickCount(std::clamp(decades, 1, room));
        return QCPAxisTickerLog::createTickVector(tickStep, range);
    }

private:
    static constexpr double kRowsPerLabel = 1.5;
};

QString shapeName(const store::CellRow& c) {
    return QString("%1 ws%2").arg(c.layer).arg(c.worldSize);
}

QPointF pixelOf(const QCustomPlot& plot, const SweepLine::Size& s) {
    return {plot.xAxis->coordToPixel(s.bytes), plot.yAxis->coordToPixel(s.busbw.median)};
}

// The cell's stored series, by reference (QMap's const [] gives a copy, and lines point into them).
const std::vector<store::StoredSweep>& seriesOf(const report::ReportData& data,
                                                const store::CellRow& c) {
    static const std::vector<store::StoredSweep> none;
    const auto it = data.sweepsByCell.constFind(c.id);
    return it == data.sweepsByCell.constEnd() ? none : *it;
}

// Why a series of a complete sweep cell is not drawn; empty when it is.
QString leftOutBecause(const store::CellRow& c, const analysis::SweepSeries& s) {
    if (!s.unsupported.isEmpty()) {
        return "not measured, the backend has none";
    }
    if (s.points.empty()) {
        return "not measured, no sizes";
    }
    // One rank moves no data: nccl-tests' factor gives busbw 0 (broadcast: the algbw of a copy
    // that never leaves the process), so nothing is drawn at 1.
    if (c.worldSize == 1) {
        return "not drawn, one rank moves no data";
    }
    if (!std::ranges::all_of(s.points, [](const analysis::SweepPoint& p) {
            return p.busbwGBps && *p.busbwGBps > 0;
        })) {
        return "not drawn, no busbw for the kind";
    }
    return {};
}

// Per size any repeat measured, the repeats' median busbw with its min and max
// (report::spreadOf, as the DDP figures take a group's), and the point of the repeat nearest it.
std::vector<SweepLine::Size> sizesOf(const QString& key,
                                     const std::vector<SweepLine::Repeat>& repeats) {
    std::map<double, std::map<const store::CellRow*, const analysis::SweepPoint*>> bySize;
    for (const SweepLine::Repeat& r : repeats) {
        for (const analysis::SweepPoint& p : r.sweep->series.points) {
            bySize[p.bytes][r.cell] = &p;
        }
    }
    std::vector<SweepLine::Size> out;
    for (const auto& [bytes, points] : bySize) {
        report::RepeatGroup group{key, {}};
        for (const SweepLine::Repeat& r : repeats) {
            if (points.count(r.cell)) {
                group.cells.push_back(r.cell);
            }
        }
        const auto spread =
            report::spreadOf(group, [&](const store::CellRow& c) -> std::optional<double> {
                return points.at(&c)->busbwGBps;
            });
        if (spread) {
            out.push_back({bytes, *spread, points.at(spread->representative)});
        }
    }
    return out;
}

double segmentDistance(QPointF pos, QPointF a, QPointF b) {
    const QPointF ab = b - a;
    const double len2 = QPointF::dotProduct(ab, ab);
    const double t = len2 > 0 ? std::clamp(QPointF::dotProduct(pos - a, ab) / len2, 0.0, 1.0) : 0.0;
    const QPointF at = a + t * ab - pos;
    return std::hypot(at.x(), at.y());
}

} // namespace

QString SweepLine::name() const {
    return shapeName(*cell) + " " + sweep->series.kind;
}

bool SweepLine::contains(const QString& cellId) const {
    return std::any_of(repeats.begin(), repeats.end(),
                       [&](const Repeat& r) { return r.cell->id == cellId; });
}

std::vector<SweepLine> sweepLines(const report::ReportData& data, QStringList* notes, bool each) {
    std::vector<const store::CellRow*> measured;
    for (const auto& c : data.cells) {
        if (c.isSweep() && c.complete() && data.sweepsByCell.contains(c.id)) {
            measured.push_back(&c);
        }
    }
    std::vector<SweepLine> out;
    // why -> the cell's layer and world size -> kinds, so a note names each cell once
    QMap<QString, QMap<QString, QStringList>> left;
    for (const report::RepeatGroup& g :
         each ? report::singleCellGroups(measured) : report::repeatGroups(measured)) {
        QStringList kinds;
        for (const store::CellRow* c : g.cells) {
            for (const store::StoredSweep& s : seriesOf(data, *c)) {
                kinds << s.series.kind;
            }
        }
        kinds.removeDuplicates();
        std::ranges::stable_sort(kinds, {}, kindOrder);
        for (const QString& kind : kinds) {
            SweepLine line;
            for (const store::CellRow* c : g.cells) {
                for (const store::StoredSweep& s : seriesOf(data, *c)) {
                    if (s.series.kind != kind) {
                        continue;
                    }
                    if (const QString why = leftOutBecause(*c, s.series); why.isEmpty()) {
                        line.repeats.push_back({c, &s});
                    } else if (QStringList& named = left[why][shapeName(*c)];
                               !named.contains(kind)) {
                        named << kind; // a kind once however many repeats left it out
                    }
                }
            }
            if (!line.repeats.empty()) {
                line.cell = line.repeats.front().cell;
                line.sweep = line.repeats.front().sweep;
                line.sizes = sizesOf(g.key, line.repeats);
                out.push_back(std::move(line));
            }
        }
    }
    if (notes) {
        for (auto why = left.begin(); why != left.end(); ++why) {
            QStringList cells;
            for (auto cell = why->begin(); cell != why->end(); ++cell) {
                cells << QString("%1 (%2)").arg(cell.key(), cell->join(", "));
            }
            *notes << why.key() + ": " + cells.join("; ");
        }
    }
    return out;
}

void drawSweepBandwidth(QCustomPlot& plot, const report::ReportData& data,
                        const FigureStyle& style) {
    // The ticks carry their unit (8 B, 1 KiB, 16 MiB): the label names only the quantity.
    resetFigure(plot, "Collective bus bandwidth vs size", "message size", "busbw (GB/s)", style);
    QStringList notes;
    const std::vector<SweepLine> lines = sweepLines(data, &notes, style.eachRepeat);
    // A line's index among the world sizes picks its marker and shade.
    const auto sizes = ascendingDistinct<QVector<int>>(
        lines, [](const SweepLine& l) { return l.cell->worldSize; });
    QVector<double> xs, ys;
    QSet<QString> named; // each repeat drawn on its own: one entry for a name
    int mostRepeats = 0;
    for (const SweepLine& line : lines) {
        const auto w = int(sizes.indexOf(line.cell->worldSize)); // every line's is there
        const QColor colour = worldSizeShade(layerColour(line.cell->layer), w);
        QCPGraph* g = plot.addGraph();
        g->setName(line.name());
        if (named.contains(line.name())) {
            g->removeFromLegend();
        }
        named.insert(line.name());
        g->setProperty("cellId", line.cell->id);
        g->setPen(QPen(colour, 1.6, kindDash(line.sweep->series.kind)));
        // A kind has its marker as well as its dash: the kinds of one cell share its colour,
        // and a dash alone is hard to tell at a paper's size.
        g->setScatterStyle(
            QCPScatterStyle(worldSizeShape(kindOrder(line.sweep->series.kind)), colour, colour, 5));
        int repeats = 0;
        for (const SweepLine::Size& s : line.sizes) {
            g->addData(s.bytes, s.busbw.median);
            xs << s.bytes;
            ys << s.busbw.low << s.busbw.high;
            repeats = std::max(repeats, s.busbw.repeats);
        }
        if (repeats > 1) {
            QCPErrorBars* whiskers = addSpread(g, colour);
            for (const SweepLine::Size& s : line.sizes) {
                addSpreadPoint(whiskers, s.busbw.median, s.busbw.low, s.busbw.high);
            }
        }
        mostRepeats = std::max(mostRepeats, repeats);
    }
    addSpreadLegendEntry(plot, mostRepeats);
    const auto [lo, hi] = std::minmax_element(xs.begin(), xs.end());
    const double minBytes = xs.isEmpty() ? kDefaultMinBytes : *lo;
    const double maxBytes = xs.isEmpty() ? kDefaultMaxBytes : std::max(*hi, 2 * *lo);
    // Room on either side for the end markers.
    plot.xAxis->setScaleType(QCPAxis::stLogarithmic);
    plot.xAxis->setTicker(QSharedPointer<SizeTicker>::create(plot.xAxis));
    plot.xAxis->setSubTicks(false);
    plot.xAxis->setRange(minBytes / 1.5, maxBytes * 1.5);
    fitAxis(plot.yAxis, ys, true);
    if (plot.yAxis->scaleType() == QCPAxis::stLogarithmic) {
        // Bandwidth is read in orders of magnitude: a tick per decade where there is room.
        plot.yAxis->setTicker(QSharedPointer<DecadeTicker>::create(plot.yAxis));
    }

    std::vector<const store::CellRow*> flagged;
    bool anySweep = false;
    for (const auto& c : data.cells) {
        anySweep = anySweep || c.isSweep();
        if (c.isSweep() && flaggedCell(c)) {
            flagged.push_back(&c);
        }
    }
    // Flagged cells have no size to stand at: spread along the band at the top.
    const double span = std::log(plot.xAxis->range().upper / plot.xAxis->range().lower);
    for (std::size_t i = 0; i < flagged.size(); ++i) {
        const double x =
            plot.xAxis->range().lower * std::exp(span * (double(i) + 0.5) / double(flagged.size()));
        addFlaggedMarker(plot, x, flagged[i]->id,
                         shapeName(*flagged[i]) + " sweep " + flagged[i]->status);
    }
    addFlaggedLegendEntry(plot);
    sayWhenEmpty(plot,
                 anySweep ? "No complete sweep series to draw"
                          : "No sweep cells in these results:\nadd a kind: sweep entry "
                            "to the matrix's models",
                 style);
    if (!notes.isEmpty()) {
        addNote(plot, notes.join('\n'), style);
    }
}

void markSweepCell(const QCustomPlot& plot, const report::ReportData& data, const QString& cellId,
                   const std::function<QCPGraph*()>& mark) {
    for (const SweepLine& line : sweepLines(data, nullptr, eachRepeat(plot))) {
        if (!line.contains(cellId)) {
            continue;
        }
        QCPGraph* g = mark();
        g->setLineStyle(QCPGraph::lsLine);
        g->setPen(QPen(QColor(0, 0, 0, 110), 3.5));
        g->setScatterStyle(
            QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(Qt::black, 1.5), Qt::NoBrush, 8));
        for (const SweepLine::Size& s : line.sizes) {
            g->addData(s.bytes, s.busbw.median);
        }
    }
}

std::optional<SweepPick> sweepPickAt(const QCustomPlot& plot, const report::ReportData& data,
                                     QPointF pos, double radiusPx) {
    std::optional<SweepPick> best;
    double bestDist = radiusPx;
    for (const SweepLine& line : sweepLines(data, nullptr, eachRepeat(plot))) {
        const auto& sizes = line.sizes;
        for (std::size_t i = 0; i < sizes.size(); ++i) {
            const std::size_t next = std::min(i + 1, sizes.size() - 1);
            const QPointF a = pixelOf(plot, sizes[i]);
            const QPointF b = pixelOf(plot, sizes[next]);
            const double d = segmentDistance(pos, a, b);
            if (d < bestDist) {
                bestDist = d;
                const bool nearA = std::hypot(a.x() - pos.x(), a.y() - pos.y()) <=
                                   std::hypot(b.x() - pos.x(), b.y() - pos.y());
                const std::size_t at = nearA ? i : next;
                // The repeat nearest the median there: the cell a click selects.
                SweepLine picked = line;
                if (const auto r = std::ranges::find(line.repeats, sizes[at].busbw.representative,
                                                     &SweepLine::Repeat::cell);
                    r != line.repeats.end()) {
                    picked.cell = r->cell;
                    picked.sweep = r->sweep;
                }
                best = SweepPick{picked, sizes[at].point, at};
            }
        }
    }
    return best;
}

QString describeSweepPick(const SweepPick& pick) {
    const store::CellRow& c = *pick.line.cell;
    const analysis::SweepPoint& p = *pick.point;
    QStringList lines{
        c.id, QString("%1 · %2 · %3").arg(c.status, c.layer, report::ranksText(c.worldSize)),
        QString("%1 at %2 (%3 B)")
            .arg(pick.line.sweep->series.kind, sizeLabel(p.bytes))
            .arg(p.bytes, 0, 'f', 0),
        QString("busbw %1 GB/s · algbw %2 GB/s")
            .arg(p.busbwGBps.value_or(0), 0, 'g', 4)
            .arg(p.algbwGBps, 0, 'g', 4),
        QString("time %1 us (rank %2's fastest), typical %3 us")
            .arg(p.slowestUs, 0, 'f', 1)
            .arg(p.slowestRank)
            .arg(p.typicalUs, 0, 'f', 1)};
    if (pick.size < pick.line.sizes.size()) {
        if (const report::Spread& s = pick.line.sizes[pick.size].busbw; s.repeats > 1) {
            lines << QString("median busbw of %1 repeats %2 GB/s (min %3, max %4; this repeat "
                             "is nearest it; Results > Each repeat draws them)")
                         .arg(s.repeats)
                         .arg(s.median, 0, 'g', 4)
                         .arg(s.low, 0, 'g', 4)
                         .arg(s.high, 0, 'g', 4);
        }
    }
    return lines.join('\n');
}

} // namespace commprof::widgets
