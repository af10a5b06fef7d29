// SPDX-License-Identifier: GPL-3.0-or-later
#include "result_plots.h"

#include "analysis/cell_metrics.h"
#include "facets.h"
#include "report/repeat_groups.h"
#include "report/series_names.h"
#include "spec/units.h"
#include "sweep_plot.h"
#include "tuning_plot.h"

#include <qcustomplot.h>

#include <QHash>
#include <QMap>
#include <QSet>

#include <cmath>

namespace commprof::widgets {
namespace {

constexpr double kPickRadiusPx = 20.0;
constexpr std::size_t kUprightBars = 6;
constexpr double kRunNamesHeadroom = 0.15; // of a bar figure's value range
constexpr double kBoxBelowRunPx = 2.0;     // the selection's box starts below a run's name

std::optional<double> overheadPercent(const store::CellRow& c) {
    if (c.complete() && c.commOverheadFraction) {
        return *c.commOverheadFraction * 100.0;
    }
    return std::nullopt;
}

bool eachRepeat(const QCustomPlot& plot) {
    return plot.property("eachRepeat").toBool();
}

// The cells of `cells` grouped by all but their repeat, or one group per cell when the figure
// draws each repeat.
std::vector<report::RepeatGroup> groupsOf(const std::vector<const store::CellRow*>& cells,
                                          bool each) {
    return each ? report::singleCellGroups(cells) : report::repeatGroups(cells);
}

// Whiskers from each point's low to its high, on the plottable's own data.
QCPErrorBars* addSpread(QCPAbstractPlottable* of, const QColor& colour) {
    auto* bars = new QCPErrorBars(of->keyAxis(), of->valueAxis());
    bars->setDataPlottable(of);
    bars->setErrorType(QCPErrorBars::etValueError);
    bars->setPen(QPen(colour.darker(140), 1.2));
    bars->setWhiskerWidth(6);
    bars->removeFromLegend();
    return bars;
}

void addSpreadPoint(QCPErrorBars* bars, double at, double low, double high) {
    bars->addData(std::max(0.0, at - low), std::max(0.0, high - at));
}

// The overhead figure's marks: per group of repeats, its median at its world size, and the cell
// a click there picks (the repeat nearest the median).
struct OverheadMark {
    const report::RepeatGroup* group;
    report::Spread spread;
};
struct OverheadMarks {
    std::vector<const store::CellRow*> drawn;
    std::vector<report::RepeatGroup> groups;
    std::vector<OverheadMark> marks;
};
OverheadMarks overheadMarks(const report::ReportData& data, bool each) {
    OverheadMarks out;
    for (const auto& c : data.cells) {
        if (overheadPercent(c)) {
            out.drawn.push_back(&c);
        }
    }
    out.groups = groupsOf(out.drawn, each);
    for (const report::RepeatGroup& g : out.groups) {
        if (const auto s = report::spreadOf(g, overheadPercent)) {
            out.marks.push_back({&g, *s});
        }
    }
    return out;
}

// Says in the legend what the whiskers are, where a group has more than one repeat.
void addSpreadLegendEntry(QCustomPlot& plot, int mostRepeats) {
    if (mostRepeats > 1) {
        QCPGraph* g = plot.addGraph();
        g->setName(QString("median; whiskers: min to max of %1 repeats").arg(mostRepeats));
        g->setPen(Qt::NoPen);
    }
}

// Every world size a DDP figure shows, ascending: its index picks the dash and the marker.
QVector<double> worldSizes(const report::ReportData& data) {
    QVector<double> out;
    for (const store::CellRow* c : axisCells(data)) {
        out << c->worldSize;
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

int indexOf(const QVector<double>& sorted, int worldSize) {
    return int(std::lower_bound(sorted.begin(), sorted.end(), double(worldSize)) - sorted.begin());
}

QCPItemText* flaggedItem(const QCustomPlot& plot, const QString& cellId) {
    for (int i = 0; i < plot.itemCount(); ++i) {
        auto* t = qobject_cast<QCPItemText*>(plot.item(i));
        if (t && t->objectName() == "flagged" && t->property("cellId").toString() == cellId) {
            return t;
        }
    }
    return nullptr;
}

std::vector<const store::CellRow*> firstCells(const std::vector<report::RepeatGroup>& groups) {
    std::vector<const store::CellRow*> cells;
    for (const report::RepeatGroup& g : groups) {
        cells.push_back(&g.first());
    }
    return cells;
}

QStringList barAxes(const std::vector<report::RepeatGroup>& groups, bool each) {
    return report::varyingAxes(firstCells(groups), each ? QStringList{} : QStringList{"repeat"});
}

// Many bars that differ in two axes or more run in groups of the first varying axis (the hook,
// which colours the other figures), named once above each run (categoryRuns): each bar's label
// keeps the other values only. A study's labels held every value ("fp16_compress 0.25
// transformer2m") and were cut in the middle at a column's width; without the run's value
// they are read whole. Empty for few bars, which are labelled in full, upright.
QString runAxis(const std::vector<report::RepeatGroup>& groups, bool each) {
    if (groups.size() <= kUprightBars) {
        return {};
    }
    const QStringList varying = barAxes(groups, each);
    return varying.size() >= 2 ? varying.front() : QString();
}

// A run's name: its value as a legend names it ("allreduce", "bucket_cap_mb=0.25").
QString runValue(const store::CellRow& c, const QString& axis) {
    return axis == "world_size" ? ranksText(c.worldSize)
                                : report::axisValueText(axis, c.axes.value(axis).toString());
}

// A bar's label: the values that tell it from the other bars (the axis title names their axes).
// Few bars take one value a line, upright; many take one line, turned to run up the axis, so a
// label needs only its line's height along the axis, and run in groups (runAxis).
void categoryAxis(QCustomPlot& plot, const std::vector<report::RepeatGroup>& groups, bool each) {
    const std::vector<const store::CellRow*> cells = firstCells(groups);
    QStringList varying = barAxes(groups, each);
    const QString run = runAxis(groups, each);
    varying.removeOne(run);
    const bool upright = cells.size() <= kUprightBars;
    QStringList labels;
    QList<QPair<QString, int>> runs;
    for (const store::CellRow* c : cells) {
        labels << report::distinguishingLabel(*c, varying, upright ? "\n" : " ");
        if (!run.isEmpty()) {
            if (runs.isEmpty() || runs.back().first != runValue(*c, run)) {
                runs.append({runValue(*c, run), 0});
            }
            ++runs.back().second;
        }
    }
    categoryTicks(plot.xAxis, labels);
    plot.xAxis->setLabel(varying.join(" \u00b7 "));
    plot.xAxis->setTickLabelRotation(upright ? 0 : -90);
    plot.xAxis->setRange(0.4, double(cells.size()) + 0.6);
    if (!runs.isEmpty()) {
        categoryRuns(plot.xAxis, runs);
    }
}

// Room above the bars for the runs' names (a line of text at the top of the axes).
void roomForRuns(QCustomPlot& plot, const std::vector<report::RepeatGroup>& groups, bool each) {
    if (!runAxis(groups, each).isEmpty()) {
        const QCPRange r = plot.yAxis->range();
        plot.yAxis->setRangeUpper(r.upper + r.size() * kRunNamesHeadroom);
    }
}

// The legend of a figure styled by report::SeriesStyles: each colour once, the markers in one
// key (in grey, never cut), each shade once (a grey band, which no marker looks like): the
// entries grow with the values, not with their product.
void styleLegend(QCustomPlot& plot, const report::SeriesStyles& styles, bool lines) {
    const auto entry = [&](const QString& name, const QColor& colour,
                           QCPScatterStyle::ScatterShape shape) {
        QCPGraph* g = plot.addGraph();
        g->setName(name);
        g->setPen(lines && shape == QCPScatterStyle::ssNone ? QPen(colour, 2) : Qt::NoPen);
        g->setScatterStyle(
            QCPScatterStyle(shape == QCPScatterStyle::ssNone ? QCPScatterStyle::ssSquare : shape,
                            colour, colour, 7));
    };
    for (int c = 0; c < styles.colourValues.size(); ++c) {
        entry(styles.colourName(c), seriesColour(styles.colourAxis, styles.colourValues[c], c, 0),
              styles.markerAxis.isEmpty() ? markerShape(0) : QCPScatterStyle::ssNone);
    }
    QList<LegendMarker> markers;
    for (int m = 0; m < styles.markerValues.size(); ++m) {
        markers.append({markerShape(m), QColor(90, 90, 90), styles.markerValues[m]});
    }
    addMarkerKey(plot, styles.markerAxis, markers);
    if (styles.shadeValues.size() > 1) {
        for (int s = 0; s < styles.shadeValues.size(); ++s) {
            QCPGraph* band = plot.addGraph();
            band->setName(styles.shadeName(s));
            band->setPen(QPen(seriesColour({}, {}, 0, s), 6, Qt::SolidLine, Qt::FlatCap));
            band->setScatterStyle(QCPScatterStyle::ssNone);
        }
    }
}

} // namespace

bool flaggedCell(const store::CellRow& c) {
    return c.status == "incomplete" || c.status == "failed" || c.status == "stopped";
}

QString ranksText(int worldSize) {
    return QString("%1 rank%2").arg(worldSize).arg(worldSize == 1 ? "" : "s");
}

const store::CellRow* findCell(const report::ReportData& data, const QString& cellId) {
    const auto it = std::ranges::find(data.cells, cellId, &store::CellRow::id);
    return it == data.cells.end() ? nullptr : &*it;
}

// What the trace-derived figures say when no cell has the trace they are drawn from.
constexpr const char* kNoTracedCell =
    "No complete DDP cell with a trace to draw\n(trace: {enabled: true} in the matrix)";

std::vector<const store::CellRow*> axisCells(const report::ReportData& data) {
    std::vector<const store::CellRow*> out;
    for (const auto& c : data.cells) {
        if (c.status != "skipped_infeasible" && !c.isSweep()) {
            out.push_back(&c);
        }
    }
    return out;
}

std::vector<report::RepeatGroup> axisGroups(const report::ReportData& data, bool each) {
    std::vector<report::RepeatGroup> groups = groupsOf(axisCells(data), each);
    // By the varying axes' values in their order: the bars of a run (runAxis, the first axis)
    // side by side, and within it by the next axis.
    const QStringList axes = barAxes(groups, each);
    std::stable_sort(groups.begin(), groups.end(), [&](const auto& a, const auto& b) {
        for (const QString& axis : axes) {
            const QString x = a.first().axes.value(axis).toString();
            const QString y = b.first().axes.value(axis).toString();
            if (x != y) {
                return report::valueLess(x, y);
            }
        }
        return false;
    });
    return groups;
}

namespace {

// A group's flagged repeats: one marker at its place (the first flagged repeat's, counting the
// others), never a value. Returns whether there was one.
bool flagGroup(QCustomPlot& plot, double x, const report::RepeatGroup& g) {
    std::vector<const store::CellRow*> flagged;
    for (const store::CellRow* c : g.cells) {
        if (flaggedCell(*c)) {
            flagged.push_back(c);
        }
    }
    if (flagged.empty()) {
        return false;
    }
    addFlaggedMarker(plot, x, flagged.front()->id,
                     flagged.size() == 1
                         ? flagged.front()->status
                         : QString("%1 \u00d7%2").arg(flagged.front()->status).arg(flagged.size()));
    return true;
}

// Each group's flagged marker, the legend's entry for them where there is one, and what the
// figure says when it draws nothing.
void flagGroups(QCustomPlot& plot, const std::vector<report::RepeatGroup>& groups,
                const FigureStyle& style) {
    bool anyFlagged = false;
    for (std::size_t i = 0; i < groups.size(); ++i) {
        anyFlagged |= flagGroup(plot, double(i + 1), groups[i]);
    }
    if (anyFlagged) {
        addFlaggedLegendEntry(plot);
    }
    sayWhenEmpty(plot, kNoTracedCell, style);
}

// The repeat a click on a group's bar picks: the one with the median step.
const store::CellRow* representative(const report::RepeatGroup& g) {
    const auto s = report::spreadOf(g, [](const store::CellRow& c) { return c.stepMs; });
    return s ? s->representative : &g.first();
}

} // namespace

void drawOverheadVsWorldSize(QCustomPlot& plot, const report::ReportData& data,
                             const FigureStyle& style) {
    resetFigure(plot, "Exposed comm. vs world size", "world size (ranks)",
                "exposed comm. (% of step)", style);
    // One series per combination of every axis that varies but the world size (the x axis);
    // a point per world size, the median of its repeats with whiskers to their min and max
    // (each repeat a point of its own when the style asks). The first varying axis (the hook,
    // when it varies) gives the colour, the second the marker, any further one a shade of the
    // colour; with nothing varying, the layer's colour.
    plot.setProperty("eachRepeat", style.eachRepeat);
    const OverheadMarks marks = overheadMarks(data, style.eachRepeat);
    const QStringList varying = report::varyingAxes(marks.drawn, {"world_size", "repeat"});
    const report::SeriesStyles styles = report::seriesStyles(marks.drawn, varying);
    QMap<QString, std::vector<const OverheadMark*>> series;
    QVector<double> values;
    for (const OverheadMark& m : marks.marks) {
        series[styles.seriesKey(m.group->first())].push_back(&m);
        values << m.spread.low << m.spread.high;
    }
    for (const auto& points : series) {
        const store::CellRow& first = points.front()->group->first();
        QCPGraph* g = plot.addGraph();
        const QColor colour =
            styles.colourAxis.isEmpty()
                ? layerColour(first.layer)
                : seriesColour(styles.colourAxis, first.axes.value(styles.colourAxis).toString(),
                               styles.colourIndex(first), styles.shadeIndex(first));
        g->setName(report::seriesName(first, varying));
        g->setPen(QPen(colour, 2));
        g->setScatterStyle(
            QCPScatterStyle(markerShape(styles.markerIndex(first)), colour, colour, 8));
        if (style.eachRepeat) {
            g->setLineStyle(QCPGraph::lsNone); // repeats at one size joined would zigzag
        }
        QMultiMap<int, const OverheadMark*> bySize;
        for (const OverheadMark* m : points) {
            bySize.insert(m->group->first().worldSize, m);
        }
        const bool spread = std::any_of(points.begin(), points.end(),
                                        [](const auto* m) { return m->spread.repeats > 1; });
        QCPErrorBars* whiskers = spread ? addSpread(g, colour) : nullptr;
        for (auto p = bySize.begin(); p != bySize.end(); ++p) {
            g->addData(p.key(), p.value()->spread.median);
            if (whiskers) {
                addSpreadPoint(whiskers, p.value()->spread.median, p.value()->spread.low,
                               p.value()->spread.high);
            }
        }
        if (!varying.isEmpty()) {
            g->removeFromLegend(); // the legend names each colour and marker once instead
        }
    }
    if (!varying.isEmpty()) {
        styleLegend(plot, styles, true);
    }
    int mostRepeats = 0;
    for (const OverheadMark& m : marks.marks) {
        mostRepeats = std::max(mostRepeats, m.spread.repeats);
    }
    addSpreadLegendEntry(plot, mostRepeats);
    const QVector<double> sizes = worldSizes(data);
    integerTicks(plot.xAxis, sizes);
    if (spansDecades(sizes)) {
        plot.xAxis->setScaleType(QCPAxis::stLogarithmic);
        plot.xAxis->setRange(sizes.front() / 1.5, sizes.back() * 1.5);
    } else if (!sizes.isEmpty()) {
        plot.xAxis->setRange(sizes.front() - 0.5, sizes.back() + 0.5);
    }
    fitAxis(plot.yAxis, values, true);
    bool anyFlagged = false;
    for (const auto& c : data.cells) {
        if (flaggedCell(c) && !c.isSweep()) {
            addFlaggedMarker(plot, c.worldSize, c.id, c.status);
            anyFlagged = true;
        }
    }
    if (anyFlagged) {
        addFlaggedLegendEntry(plot);
    }
    sayWhenEmpty(plot, kNoTracedCell, style);
}

void drawBucketTimeVsBytes(QCustomPlot& plot, const report::ReportData& data,
                           const FigureStyle& style) {
    resetFigure(plot, "Bucket all-reduce time vs size", "bucket size (MiB)", "all-reduce time (ms)",
                style);
    const QVector<double> sizes = worldSizes(data);
    QVector<double> xs, ys;
    QSet<QString> hooks;
    for (const auto& pool : data.bucketPools) {
        hooks.insert(pool.hook);
        for (const auto& s : pool.samples) {
            xs << s.bytes / spec::kMiB;
            ys << s.seconds * 1e3;
        }
    }
    const bool logX = spansDecades(xs);
    for (auto it = data.bucketPools.begin(); it != data.bucketPools.end(); ++it) {
        // A colour per hook where the pools differ in it (each hook is fitted apart), else the
        // layer's.
        const QColor colour = hooks.size() > 1 ? hookColour(it->hook) : layerColour(it->layer);
        QMap<int, QCPGraph*> points;
        double minBytes = 0, maxBytes = 0;
        for (const auto& s : it->samples) {
            QCPGraph*& g = points[s.worldSize];
            if (!g) {
                g = plot.addGraph();
                g->setName(QString("%1, %2").arg(it.key(), ranksText(s.worldSize)));
                g->setLineStyle(QCPGraph::lsNone);
                g->setScatterStyle(QCPScatterStyle(worldSizeShape(indexOf(sizes, s.worldSize)),
                                                   colour, colour, 5));
            }
            g->addData(s.bytes / spec::kMiB, s.seconds * 1e3);
            minBytes = minBytes == 0 ? s.bytes : std::min(minBytes, s.bytes);
            maxBytes = std::max(maxBytes, s.bytes);
        }
        if (!it->fit) {
            continue;
        }
        if (!it->fit->describesSamples()) {
            // Said in the legend, with no line: a refused fit drawn would read as a model.
            QCPGraph* refused = plot.addGraph();
            refused->setPen(Qt::NoPen);
            refused->setName(
                QString("%1 fit refused (R\u00b2 %2)").arg(it.key()).arg(it->fit->r2, 0, 'f', 2));
            continue;
        }
        for (auto p = points.begin(); p != points.end(); ++p) {
            QCPGraph* line = plot.addGraph();
            line->setName(QString("%1 fit, %2 ranks (R\u00b2 %3)")
                              .arg(it.key())
                              .arg(p.key())
                              .arg(it->fit->r2, 0, 'f', 2));
            line->setPen(QPen(colour, 1.5, worldSizeDash(indexOf(sizes, p.key()))));
            const double lo = logX ? minBytes : 0.0;
            for (int k = 0; k <= 40; ++k) {
                const double bytes =
                    logX ? lo * std::pow(maxBytes / lo, k / 40.0) : lo + (maxBytes - lo) * k / 40.0;
                const double ms = it->fit->predict(bytes, p.key()) * 1e3;
                if (ms > 0) {
                    line->addData(bytes / spec::kMiB, ms);
                }
            }
        }
    }
    fitAxis(plot.xAxis, xs, true);
    fitAxis(plot.yAxis, ys, true);
    sayWhenEmpty(plot,
                 "No bucket crossed a link: no complete DDP cell of 2 or more\nranks whose hook "
                 "sends (hook: local sends nothing)",
                 style);
}

void drawStackedBreakdown(QCustomPlot& plot, const report::ReportData& data,
                          const FigureStyle& style) {
    resetFigure(plot, "Median step by kind (rank 0)", "", "ms per step", style);
    plot.setProperty("eachRepeat", style.eachRepeat);
    const auto groups = axisGroups(data, style.eachRepeat);
    // A bar per group of repeats: each kind's median over the complete repeats, stacked, and a
    // whisker from the shortest repeat's step to the longest's.
    QVector<double> keys, compute, exposed, bookkeeping, other, totals;
    QVector<double> tops, lows, highs;
    int mostRepeats = 0;
    const auto total = [](const store::CellRow& c) -> std::optional<double> {
        if (!c.computeMs || !c.exposedCommMs) {
            return std::nullopt;
        }
        const double kinds = *c.computeMs + *c.exposedCommMs + c.bookkeepingMs.value_or(0.0);
        return std::max(kinds, c.stepMs.value_or(kinds));
    };
    for (std::size_t i = 0; i < groups.size(); ++i) {
        const auto steps = report::spreadOf(groups[i], total);
        if (!steps) {
            continue;
        }
        const auto median = [&](auto member) {
            const auto s = report::spreadOf(groups[i], [&](const store::CellRow& c) {
                return total(c) ? std::optional<double>((c.*member).value_or(0.0)) : std::nullopt;
            });
            return s ? s->median : 0.0;
        };
        keys << double(i + 1);
        compute << median(&store::CellRow::computeMs);
        exposed << median(&store::CellRow::exposedCommMs);
        bookkeeping << median(&store::CellRow::bookkeepingMs);
        const double kinds = compute.back() + exposed.back() + bookkeeping.back();
        // Each kind's median is of its own steps, and the trace leaves gaps between slices:
        // what the step has beyond the three is drawn, so the bar is the step.
        other << std::max(0.0, steps->median - kinds);
        totals << kinds + other.back() << steps->high;
        tops << kinds + other.back();
        lows << steps->low;
        highs << steps->high;
        mostRepeats = std::max(mostRepeats, steps->repeats);
    }
    auto bars = [&](const QString& name, const QVector<double>& values, const QColor& colour) {
        QCPBars* b = addBars(plot.xAxis, plot.yAxis, name, colour);
        b->setData(keys, values);
        return b;
    };
    QCPBars* c1 = bars("compute", compute, computeColour());
    QCPBars* c2 = bars("exposed comm.", exposed, communicationColour());
    QCPBars* c3 = bars("bookkeeping", bookkeeping, bookkeepingColour());
    QCPBars* c4 = bars("rest of the step", other, QColor(170, 170, 170));
    c2->moveAbove(c1);
    c3->moveAbove(c2);
    c4->moveAbove(c3);
    if (mostRepeats > 1) {
        // Whiskers need a plottable whose value is the stack's top: bars hold their own part.
        QCPGraph* top = plot.addGraph();
        top->setName("spread");
        top->removeFromLegend();
        top->setLineStyle(QCPGraph::lsNone);
        top->setScatterStyle(QCPScatterStyle::ssNone);
        top->setData(keys, tops);
        QCPErrorBars* whiskers = addSpread(top, QColor(60, 60, 60));
        for (int i = 0; i < keys.size(); ++i) {
            addSpreadPoint(whiskers, tops[i], lows[i], highs[i]);
        }
    }
    // The title says "median"; a legend entry for the whiskers would cost the bars their room.
    categoryAxis(plot, groups, style.eachRepeat);
    fitAxis(plot.yAxis, totals, true, false); // stacked bars need a linear axis from zero
    roomForRuns(plot, groups, style.eachRepeat);
    flagGroups(plot, groups, style);
}

void drawAgreement(QCustomPlot& plot, const report::ReportData& data, const FigureStyle& style) {
    resetFigure(plot, "Hook vs backend per step", "", "backend / hook", style);
    plot.setProperty("eachRepeat", style.eachRepeat);
    const auto groups = axisGroups(data, style.eachRepeat);
    QMap<QString, QCPBars*> byLayer;
    QMap<QCPBars*, QCPErrorBars*> whiskers;
    QCPBars* notJudged = nullptr;
    QVector<double> values{1.0 + analysis::kAgreementTolerance};
    int mostRepeats = 0;
    const auto ratio = [](const store::CellRow& c) { return c.hookTraceAgreement; };
    for (std::size_t i = 0; i < groups.size(); ++i) {
        const auto s = report::spreadOf(groups[i], ratio);
        if (!s) {
            continue;
        }
        const store::CellRow& c = *s->representative;
        QCPBars* b = nullptr;
        if (!c.agreementFlagged && !c.agreementReason.isEmpty()) {
            // A ratio the analysis did not judge (one rank moves no data) is no disagreement:
            // an outline, named in the legend, never a bar in the layer's colour.
            if (!notJudged) {
                // Nothing crossed a link.
                notJudged = addBars(plot.xAxis, plot.yAxis, "not judged (1 rank)", Qt::gray);
                notJudged->setBrush(Qt::NoBrush);
                notJudged->setPen(QPen(QColor(150, 150, 150), 1, Qt::DashLine));
            }
            b = notJudged;
        } else {
            QCPBars*& layer = byLayer[c.layer];
            if (!layer) {
                layer = addBars(plot.xAxis, plot.yAxis, c.layer, layerColour(c.layer));
            }
            b = layer;
        }
        b->addData(double(i + 1), s->median);
        if (s->repeats > 1) {
            QCPErrorBars*& w = whiskers[b];
            if (!w) {
                w = addSpread(b, QColor(60, 60, 60));
                // Bars before the first with a spread have none: zero-length whiskers.
                for (int k = 0; k + 1 < b->dataCount(); ++k) {
                    w->addData(0.0, 0.0);
                }
            }
        }
        if (QCPErrorBars* w = whiskers.value(b)) {
            addSpreadPoint(w, s->median, s->low, s->high);
        }
        values << s->low << s->high;
        mostRepeats = std::max(mostRepeats, s->repeats);
    }
    categoryAxis(plot, groups, style.eachRepeat);
    fitAxis(plot.yAxis, values, true, false); // a ratio around 1: linear reads best
    roomForRuns(plot, groups, style.eachRepeat);
    const QPen agree(Qt::darkGray, 1, Qt::SolidLine);
    const QPen tolerance(flaggedColour(), 1, Qt::DashLine);
    for (const double level :
         {1.0 - analysis::kAgreementTolerance, 1.0, 1.0 + analysis::kAgreementTolerance}) {
        auto* line = new QCPItemStraightLine(&plot);
        line->point1->setCoords(0, level);
        line->point2->setCoords(1, level);
        line->setPen(level == 1.0 ? agree : tolerance);
    }
    // The lines are items, which a legend cannot list: a graph without data says what each is.
    QCPGraph* toleranceEntry = plot.addGraph();
    toleranceEntry->setName(
        QString::fromUtf8("flagged past \u00b1%1 %").arg(analysis::kAgreementTolerance * 100));
    toleranceEntry->setPen(tolerance);
    flagGroups(plot, groups, style);
}

namespace {

// The selection's marks on a buffered layer of their own above the figure: picking a cell
// redraws the marks, not the figure under them (results_repaint_bench times both).
QCPLayer* selectionLayer(QCustomPlot& plot) {
    if (QCPLayer* l = plot.layer("selection")) {
        return l;
    }
    plot.addLayer("selection", plot.layer("main"), QCustomPlot::limAbove);
    QCPLayer* l = plot.layer("selection");
    l->setMode(QCPLayer::lmBuffered);
    return l;
}

// A bar figure's mark: a dashed box over the bar of the cell's group, the height of the axes
// below the name of the bar's run where bars run in groups (a box from the top crossed the name:
// "allreduce" read through its dashes), and a box the last selection left, where there is one.
void boxGroupOf(QCustomPlot& plot, const report::ReportData& data, const QString& cellId,
                std::vector<QCPItemRect*>& freeBoxes) {
    if (plot.findChild<QCPItemText*>("empty")) {
        return; // a figure that says it has nothing to draw has no bar to mark
    }
    const auto groups = axisGroups(data, eachRepeat(plot));
    for (std::size_t i = 0; i < groups.size(); ++i) {
        if (!groups[i].contains(cellId)) {
            continue;
        }
        QCPItemRect* box = nullptr;
        if (freeBoxes.empty()) {
            box = new QCPItemRect(&plot);
            box->setObjectName("selection");
        } else {
            box = freeBoxes.back();
            freeBoxes.pop_back();
            box->setVisible(true);
        }
        // The name's bottom follows it through every layout (it is broken into lines to fit).
        QCPItemText* run = categoryRunOf(plot, int(i) + 1);
        box->topLeft->setParentAnchorY(run ? run->bottom : nullptr);
        box->topLeft->setTypeY(run ? QCPItemPosition::ptAbsolute
                                   : QCPItemPosition::ptAxisRectRatio);
        box->bottomRight->setTypeY(QCPItemPosition::ptAxisRectRatio);
        box->topLeft->setCoords(double(i) + 1 - 0.45, run ? kBoxBelowRunPx : 0.0);
        box->bottomRight->setCoords(double(i) + 1 + 0.45, 1.0);
        box->setPen(QPen(Qt::black, 2, Qt::DashLine));
    }
}

} // namespace

void highlightCell(QCustomPlot& plot, const char* figure, const report::ReportData& data,
                   const QString& cellId) {
    // The last selection's marks are hidden and reused, not removed: a layer whose children
    // change must be drawn with the whole plot, one whose marks only move need not.
    QCPLayer* layer = selectionLayer(plot);
    std::vector<QCPGraph*> freeGraphs;
    std::vector<QCPItemRect*> freeBoxes;
    for (int i = 0; i < plot.graphCount(); ++i) {
        if (QCPGraph* g = plot.graph(i); g->name() == "selection") {
            g->data()->clear();
            g->setVisible(false);
            freeGraphs.push_back(g);
        }
    }
    bool figureChanged = false; // a flagged marker's frame is drawn with the figure
    for (int i = 0; i < plot.itemCount(); ++i) {
        QCPAbstractItem* item = plot.item(i);
        if (item->objectName() == "selection") {
            item->setVisible(false);
            if (auto* box = qobject_cast<QCPItemRect*>(item)) {
                freeBoxes.push_back(box);
            }
        } else if (auto* t = qobject_cast<QCPItemText*>(item); t && t->objectName() == "flagged") {
            figureChanged = figureChanged || t->pen().style() != Qt::NoPen;
            t->setPen(Qt::NoPen);
        }
    }
    QCPLayer* const current = plot.currentLayer();
    plot.setCurrentLayer(layer); // new marks are made on it
    const store::CellRow* cell = findCell(data, cellId);
    if (cell) {
        const QString name(figure);
        const QCPScatterStyle ring(QCPScatterStyle::ssCircle, QPen(Qt::black, 2.5), Qt::NoBrush,
                                   15);
        // A mark on the figure's axes, or on a facets.h panel's.
        auto mark = [&plot, &freeGraphs](QCPAxisRect* panel = nullptr) {
            QCPGraph* g = nullptr;
            if (freeGraphs.empty()) {
                g = plot.addGraph();
                g->setName("selection");
                g->removeFromLegend();
            } else {
                g = freeGraphs.back();
                freeGraphs.pop_back();
            }
            const QCPAxisRect* rect = panel ? panel : plot.xAxis->axisRect();
            g->setKeyAxis(rect->axis(QCPAxis::atBottom));
            g->setValueAxis(rect->axis(QCPAxis::atLeft));
            g->setPen(QPen());
            g->setLineStyle(QCPGraph::lsNone);
            g->setVisible(true);
            return g;
        };
        if (QCPItemText* t = flaggedItem(plot, cellId)) {
            t->setPen(QPen(Qt::black, 2)); // a flagged cell is marked where it is drawn
            figureChanged = true;
        } else if (name == "overhead_vs_world_size") {
            // The mark of the cell's group: its median, or the cell's own point.
            const OverheadMarks marks = overheadMarks(data, eachRepeat(plot));
            for (const OverheadMark& m : marks.marks) {
                if (m.group->contains(cellId)) {
                    QCPGraph* g = mark();
                    g->setScatterStyle(ring);
                    g->addData(cell->worldSize, m.spread.median);
                }
            }
        } else if (name == "sweep_bandwidth") {
            markSweepCell(data, cellId, mark);
        } else if (name == "tuning") {
            for (const TuningPoint& p : tuningPoints(data)) {
                if (p.cellId == cellId) {
                    QCPGraph* g = mark(facetRect(plot, p.panel));
                    g->setScatterStyle(ring);
                    g->addData(p.capMb, p.stepMs);
                }
            }
        } else if (name == "bucket_time_vs_bytes") {
            QCPGraph* g = mark();
            // Thin rings: a cell has many buckets, and the marks must not hide the others.
            g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle,
                                               QPen(QColor(0, 0, 0, 90), 1.0), Qt::NoBrush, 7));
            if (report::bucketsCommunicated(*cell)) { // the figure draws no other's
                for (const auto& s : data.bucketsByCell.value(cellId)) {
                    g->addData(s.bytes / spec::kMiB, s.seconds * 1e3);
                }
            }
        } else {
            boxGroupOf(plot, data, cellId, freeBoxes);
        }
    }
    plot.setCurrentLayer(current);
    if (figureChanged) {
        plot.replot();
    } else {
        layer->replot(); // the whole plot where its buffers are not yet set up
    }
}

QString cellAt(const QCustomPlot& plot, const char* figure, const report::ReportData& data,
               QPointF pos) {
    const QString name(figure);
    QString best;
    double bestDist = kPickRadiusPx;
    auto consider = [&](const QString& id, QPointF at) {
        const double d = std::hypot(at.x() - pos.x(), at.y() - pos.y());
        if (d < bestDist) {
            bestDist = d;
            best = id;
        }
    };
    for (int i = 0; i < plot.itemCount(); ++i) {
        if (const auto* t = qobject_cast<const QCPItemText*>(plot.item(i));
            t && t->objectName() == "flagged") {
            const QRectF r(t->topLeft->pixelPosition(), t->bottomRight->pixelPosition());
            if (r.normalized().adjusted(-4, -4, 4, 4).contains(pos)) {
                return t->property("cellId").toString();
            }
        }
    }
    if (name == "overhead_vs_world_size") {
        const OverheadMarks marks = overheadMarks(data, eachRepeat(plot));
        for (const OverheadMark& m : marks.marks) {
            consider(m.spread.representative->id,
                     {plot.xAxis->coordToPixel(m.group->first().worldSize),
                      plot.yAxis->coordToPixel(m.spread.median)});
        }
    } else if (name == "tuning") {
        // On every mouse move: each panel found once (facetRect walks the layout), not per point.
        QHash<QString, const QCPAxisRect*> panels;
        for (const TuningPoint& p : tuningPoints(data)) {
            const QCPAxisRect*& panel = panels[p.panel];
            panel = panel ? panel : facetRect(plot, p.panel);
            consider(p.cellId, {panel->axis(QCPAxis::atBottom)->coordToPixel(p.capMb),
                                panel->axis(QCPAxis::atLeft)->coordToPixel(p.stepMs)});
        }
    } else if (name == "sweep_bandwidth") {
        if (const auto pick = sweepPickAt(plot, data, pos, kPickRadiusPx)) {
            best = pick->line.cell->id;
        }
    } else if (name == "bucket_time_vs_bytes") {
        for (const auto& c : data.cells) {
            if (!report::bucketsCommunicated(c)) {
                continue; // not drawn
            }
            for (const auto& s : data.bucketsByCell.value(c.id)) {
                consider(c.id, {plot.xAxis->coordToPixel(s.bytes / spec::kMiB),
                                plot.yAxis->coordToPixel(s.seconds * 1e3)});
            }
        }
    } else {
        const double x = plot.xAxis->pixelToCoord(pos.x());
        const auto groups = axisGroups(data, eachRepeat(plot));
        const long i = std::lround(x) - 1;
        if (i >= 0 && i < long(groups.size()) && std::abs(x - double(i + 1)) < 0.45) {
            best = representative(groups[std::size_t(i)])->id;
        }
    }
    return best;
}

namespace {

// Where a figure draws a group's median: the group's repeats and their values, so that the
// repeats behind a mark are named where it is hovered.
QString repeatsText(const QCustomPlot& plot, const char* figure, const report::ReportData& data,
                    const store::CellRow& cell) {
    const QString name(figure);
    if (eachRepeat(plot) || (name != "overhead_vs_world_size" && name != "time_breakdown" &&
                             name != "hook_trace_agreement")) {
        return {};
    }
    std::vector<const store::CellRow*> cells;
    for (const auto& c : data.cells) {
        if (report::repeatGroupKey(c) == report::repeatGroupKey(cell)) {
            cells.push_back(&c);
        }
    }
    if (cells.size() < 2) {
        return {};
    }
    QStringList each;
    for (const store::CellRow* c : cells) {
        double v = 0;
        bool has = c->complete();
        if (name == "overhead_vs_world_size") {
            has = has && c->commOverheadFraction;
            v = c->commOverheadFraction.value_or(0) * 100.0;
        } else if (name == "time_breakdown") {
            has = has && c->stepMs;
            v = c->stepMs.value_or(0);
        } else {
            has = has && c->hookTraceAgreement;
            v = c->hookTraceAgreement.value_or(0);
        }
        each << QString("r%1 %2").arg(c->repeat).arg(
            has ? QString::number(v, 'f', name == "hook_trace_agreement" ? 3 : 2) : c->status);
    }
    const char* what = name == "overhead_vs_world_size" ? "exposed %"
                       : name == "time_breakdown"       ? "step ms"
                                                        : "backend / hook";
    return QString("median of %1 repeats (%2): %3 (Results > Each repeat draws them)")
        .arg(cells.size())
        .arg(what, each.join(", "));
}

} // namespace

QString toolTipAt(const QCustomPlot& plot, const char* figure, const report::ReportData& data,
                  QPointF pos) {
    if (QString(figure) == "sweep_bandwidth") {
        if (const auto pick = sweepPickAt(plot, data, pos, kPickRadiusPx)) {
            return describeSweepPick(*pick);
        }
    }
    const store::CellRow* c = findCell(data, cellAt(plot, figure, data, pos));
    if (!c) {
        return {};
    }
    QStringList lines{c->id,
                      QString("%1 · %2 · %3").arg(c->status, c->layer, ranksText(c->worldSize))};
    if (!c->complete()) {
        lines << c->reasons.join("; ");
        return lines.join('\n');
    }
    const auto ms = [](const std::optional<double>& v) {
        return v ? QString::number(*v, 'f', 2) + " ms" : QString("n/a");
    };
    if (const auto v = overheadPercent(*c)) {
        lines << QString("exposed communication %1 % of a %2 step")
                     .arg(*v, 0, 'f', 2)
                     .arg(ms(c->stepMs));
    }
    lines << QString("compute %1, exposed comm %2, bookkeeping %3")
                 .arg(ms(c->computeMs), ms(c->exposedCommMs), ms(c->bookkeepingMs));
    if (c->hookTraceAgreement) {
        lines << QString("backend / hook %1").arg(*c->hookTraceAgreement, 0, 'f', 3);
    }
    if (const QString repeats = repeatsText(plot, figure, data, *c); !repeats.isEmpty()) {
        lines << repeats;
    }
    return lines.join('\n');
}

const std::vector<FigureSpec>& reportFigures() {
    static const std::vector<FigureSpec> figures{
        {"overhead_vs_world_size", "Exposed communication vs world size", drawOverheadVsWorldSize},
        {"bucket_time_vs_bytes", "Bucket all-reduce time vs size", drawBucketTimeVsBytes},
        {"time_breakdown", "Median step by kind", drawStackedBreakdown},
        {"hook_trace_agreement", "Hook vs backend", drawAgreement},
        {"sweep_bandwidth", "Collective bus bandwidth vs size", drawSweepBandwidth},
        {"tuning", "Step time vs bucket cap", drawTuning,
         [](const report::ReportData& d) { return d.tuning.has_value(); }},
    };
    return figures;
}

const FigureSpec* figureNamed(const QString& name) {
    const auto& all = reportFigures();
    const auto it = std::ranges::find_if(all, [&](const FigureSpec& f) { return name == f.name; });
    return it == all.end() ? nullptr : &*it;
}

} // namespace commprof::widgets
