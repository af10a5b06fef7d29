// SPDX-License-Identifier: GPL-3.0-or-later
#include "result_plots.h"

#include "analysis/cell_metrics.h"
#include "facets.h"
#include "report/series_names.h"
#include "spec/mapped.h"
#include "spec/units.h"
#include "sweep_plot.h"
#include "tuning_plot.h"

#include <qcustomplot.h>

#include <QFontMetricsF>
#include <QHash>
#include <QMap>
#include <QSet>

#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <tuple>
#include <type_traits>

namespace commprof::widgets {
namespace {

constexpr double kPickRadiusPx = 20.0;
constexpr std::size_t kUprightBars = 6;
constexpr double kRunNamesHeadroom = 0.15; // of a bar figure's value range
constexpr double kBoxBelowRunPx = 2.0;     // the selection's box starts below a run's name
// One panel reads this many series, or names this many bars; past it, where several models are
// drawn, each model gets a panel of its own (facets.h).
constexpr std::size_t kSeriesPerPanel = 12;
constexpr std::size_t kBarsPerPanel = 24;
constexpr int kBarPanelAxisPx = 50; // a bar panel's y axis: its ticks and its title
constexpr int kBarLabelGapPx = 4;   // between neighbouring labels, as categoryTicks leaves it
// Rows of a series figure's panels at most (a model each): more models take more columns.
constexpr int kMostPanelRows = 3;
// Models a bar figure draws a panel each for, at most; past it one panel holds every model's
// bars: a bar panel needs the width of its labels, which a world-size panel's few ticks do not.
constexpr qsizetype kMostBarPanels = 3;
constexpr int kWorldSizePanelPx = 100; // a world-size panel's least width

constexpr const char* kDrawnMarks = "drawnMarks";

QList<DrawnMark> drawnMarks(const QCustomPlot& plot) {
    return plot.property(kDrawnMarks).value<QList<DrawnMark>>();
}

QStringList idsOf(const report::RepeatGroup& g) {
    return spec::mapped<QStringList>(g.cells, [](const store::CellRow* c) { return c->id; });
}

// The panels of a figure that draws `marks` (series or bars) from `cells`: a model each, in
// valueLess order, where several models, `mostModels` at most, have more marks than one panel
// reads; else none.
QStringList modelPanels(const std::vector<const store::CellRow*>& cells, std::size_t marks,
                        std::size_t perPanel, qsizetype mostModels) {
    if (marks <= perPanel) {
        return {};
    }
    QStringList models =
        spec::mapped<QStringList>(cells, [](const store::CellRow* c) { return c->model; });
    models.removeDuplicates();
    if (models.size() < 2 || models.size() > mostModels) {
        return {};
    }
    std::sort(models.begin(), models.end(), report::valueLess);
    return models;
}

std::optional<double> overheadPercent(const store::CellRow& c) {
    if (c.complete() && c.commOverheadFraction) {
        return *c.commOverheadFraction * 100.0;
    }
    return std::nullopt;
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
    out.groups = each ? report::singleCellGroups(out.drawn) : report::repeatGroups(out.drawn);
    for (const report::RepeatGroup& g : out.groups) {
        if (const auto s = report::spreadOf(g, overheadPercent)) {
            out.marks.push_back({&g, *s});
        }
    }
    return out;
}

// Every world size a DDP figure shows, ascending: its index picks the dash and the marker.
QVector<double> worldSizes(const report::ReportData& data) {
    return ascendingDistinct<QVector<double>>(
        axisCells(data), [](const store::CellRow* c) { return double(c->worldSize); });
}

int indexOf(const QVector<double>& sorted, int worldSize) {
    return int(std::lower_bound(sorted.begin(), sorted.end(), double(worldSize)) - sorted.begin());
}

QCPItemText* flaggedItem(const QCustomPlot& plot, const QString& cellId) {
    const auto flagged = plot.findChildren<QCPItemText*>("flagged");
    const auto it = std::ranges::find(flagged, cellId,
                                      [](auto* t) { return t->property("cellId").toString(); });
    return it == flagged.end() ? nullptr : *it;
}

std::vector<const store::CellRow*> firstCells(const std::vector<report::RepeatGroup>& groups) {
    return spec::mapped<std::vector<const store::CellRow*>>(
        groups, [](const report::RepeatGroup& g) { return &g.first(); });
}

// The axes bar labels leave out: the repeat, where a bar is a group of repeats, and the world
// size, where a label's bars stand side by side, one per world size (BarPanel).
QStringList leftOutOf(bool each, bool sideBySide = false) {
    QStringList out = each ? QStringList() : QStringList{"repeat"};
    if (sideBySide) {
        out << "world_size";
    }
    return out;
}

QStringList barAxes(const std::vector<report::RepeatGroup>& groups, const QStringList& leftOut) {
    return report::varyingAxes(firstCells(groups), leftOut);
}

// Many bars that differ in two axes or more run in groups of the first varying axis (the hook,
// which colours the other figures), named once above each run (categoryRuns): each bar's label
// keeps the other values only, short enough to read whole. Empty for few bars (upright, in full).
QString runAxis(const std::vector<report::RepeatGroup>& groups, const QStringList& leftOut) {
    if (groups.size() <= kUprightBars) {
        return {};
    }
    const QStringList varying = barAxes(groups, leftOut);
    return varying.size() >= 2 ? varying.front() : QString();
}

// A run's name: its value as a legend names it ("allreduce", "bucket_cap_mb=0.25").
QString runValue(const store::CellRow& c, const QString& axis) {
    return axis == "world_size" ? report::ranksText(c.worldSize)
                                : report::axisValueText(axis, c.axes.value(axis).toString());
}

// The legend of a figure styled by report::SeriesStyles: each colour once, the markers in one
// key (in grey, never cut), each shade once (a grey band, which no marker looks like): the
// entries grow with the values, not with their product.
void styleLegend(QCustomPlot& plot, const report::SeriesStyles& styles) {
    // A colour's entry: its line and a square where the markers have a key of their own, else
    // the first marker.
    const bool markerKey = !styles.markerAxis.isEmpty();
    for (int c = 0; c < styles.colourValues.size(); ++c) {
        const QColor colour = seriesColour(styles.colourAxis, styles.colourValues[c], c, 0);
        QCPGraph* g = plot.addGraph();
        g->setName(styles.colourName(c));
        g->setPen(markerKey ? QPen(colour, 2) : Qt::NoPen);
        g->setScatterStyle(QCPScatterStyle(markerKey ? QCPScatterStyle::ssSquare : markerShape(0),
                                           colour, colour, 7));
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
        }
    }
}

// What the trace-derived figures say when no cell has the trace they are drawn from.
constexpr const char* kNoTracedCell =
    "No complete DDP cell with a trace to draw\n(trace: {enabled: true} in the matrix)";

// A bar figure's panel: its axes, its bars (a group of repeats each) and their places, in the
// order of their places, and a group per label. A study's bars of one setting at each world
// size stand side by side over one label, the larger world size the darker: fewer labels to fit.
struct BarPanel {
    QString name; // empty in a figure of one panel
    QCPAxisRect* rect = nullptr;
    std::vector<report::RepeatGroup> groups; // a bar each
    std::vector<double> keys;                // each bar's place on the axis
    std::vector<int> shades;                 // each bar's world size, counted from the least
    std::vector<report::RepeatGroup> labels; // the first bar of each label, in order
    double width = 0.6;                      // of a bar, in categories
    QStringList leftOut;                     // the axes the labels leave out (leftOutOf)
    QCPAxis* keyAxis() const { return rect->axis(QCPAxis::atBottom); }
    QCPAxis* valueAxis() const { return rect->axis(QCPAxis::atLeft); }
};

constexpr double kPairedSpan = 0.84; // of a label's width, for its bars side by side

// Where each bar of a panel stands with each world size's (of `sizes`) beside the others over a
// label of the settings but the world size: its place and shade, in the order of their places,
// and the first bar of each label.
struct SideBySide {
    std::vector<std::tuple<double, int, std::size_t>> places; // key, shade, group
    std::vector<std::size_t> labels;
};

// Nullopt where two bars would take one place (cells whose settings the axes do not tell
// apart). The panel is left as it is: a figure's panels stand side by side all or none, so each
// is asked before any is changed.
std::optional<SideBySide> sideBySide(const BarPanel& panel, const QVector<int>& sizes, bool each) {
    const QStringList axes = barAxes(panel.groups, leftOutOf(each, true));
    const double slot = kPairedSpan / double(sizes.size());
    QHash<QString, int> labelOf;
    SideBySide out;
    QSet<QPair<int, int>> taken;
    for (std::size_t i = 0; i < panel.groups.size(); ++i) {
        const store::CellRow& c = panel.groups[i].first();
        const QString label = spec::mapped<QStringList>(axes, [&](const QString& axis) {
                                  return c.axes.value(axis).toString();
                              }).join('\n');
        if (!labelOf.contains(label)) {
            labelOf.insert(label, int(out.labels.size()));
            out.labels.push_back(i);
        }
        const auto shade = int(sizes.indexOf(c.worldSize));
        if (taken.contains({labelOf[label], shade})) {
            return std::nullopt;
        }
        taken.insert({labelOf[label], shade});
        out.places.emplace_back(labelOf[label] + 1 - kPairedSpan / 2 + slot * (shade + 0.5), shade,
                                i);
    }
    std::sort(out.places.begin(), out.places.end());
    return out;
}

// Each panel's bars side by side where every panel can have them so (`sizes` then the world
// sizes that stand side by side), else a label each in the settings' order (`sizes` cleared);
// a panel's groups in the order of their places.
void placeAll(std::vector<BarPanel>& panels, QVector<int>& sizes, bool each) {
    std::vector<SideBySide> placed;
    for (const BarPanel& p : panels) {
        const auto s = sizes.isEmpty() ? std::nullopt : sideBySide(p, sizes, each);
        if (!s) {
            sizes.clear();
            break;
        }
        placed.push_back(*s);
    }
    for (std::size_t i = 0; i < panels.size(); ++i) {
        BarPanel& panel = panels[i];
        SideBySide own; // a label each, at 1, 2, ...
        for (std::size_t k = 0; k < panel.groups.size(); ++k) {
            own.places.emplace_back(double(k + 1), 0, k);
            own.labels.push_back(k);
        }
        const SideBySide& at = sizes.isEmpty() ? own : placed[i];
        panel.leftOut = leftOutOf(each, !sizes.isEmpty());
        if (!sizes.isEmpty()) {
            panel.width = kPairedSpan / double(sizes.size()) * 0.85;
        }
        for (const std::size_t k : at.labels) {
            panel.labels.push_back(panel.groups[k]);
        }
        std::vector<report::RepeatGroup> groups;
        for (const auto& [key, shade, group] : at.places) {
            panel.keys.push_back(key);
            panel.shades.push_back(shade);
            groups.push_back(std::move(panel.groups[group]));
        }
        panel.groups = std::move(groups);
    }
}

// The bar figures' panels: a model each where several models have more bars than one panel
// names (modelPanels), each panel at least as wide as its labels need, turned up the axis a
// line of text each at the least size categoryTicks gives them; a study's world sizes side by
// side (BarPanel); the bars drawn kept for picking (keepMarks). `sizes` gets the world sizes
// that stand side by side (none when each bar has a label of its own). Panels take `shortY` for
// the value axis's title: a panel is too short for more; the figure's title says of what.
std::vector<BarPanel> barPanels(QCustomPlot& plot, const report::ReportData& data,
                                const FigureStyle& style, QVector<int>& sizes,
                                const QString& shortY) {
    std::vector<report::RepeatGroup> groups = axisGroups(data, style.eachRepeat);
    const QStringList names =
        modelPanels(firstCells(groups), groups.size(), kBarsPerPanel, kMostBarPanels);
    sizes = groups.size() > kBarsPerPanel
                ? ascendingDistinct<QVector<int>>(
                      groups, [](const report::RepeatGroup& g) { return g.first().worldSize; })
                : QVector<int>();
    if (sizes.size() < 2) {
        sizes.clear();
    }
    std::vector<BarPanel> panels;
    if (names.isEmpty()) {
        panels.emplace_back().groups = std::move(groups);
    } else {
        for (const QString& name : names) {
            panels.emplace_back().name = name;
        }
        for (report::RepeatGroup& g : groups) {
            const auto panel = std::size_t(names.indexOf(g.first().model));
            panels[panel].groups.push_back(std::move(g));
        }
    }
    placeAll(panels, sizes, style.eachRepeat);
    const std::size_t most = std::ranges::max_element(panels, {}, [](const BarPanel& p) {
                                 return p.labels.size();
                             })->labels.size();
    const double perLabel =
        QFontMetricsF(style.font(kLeastLabelPt - style.fontPt)).height() + kBarLabelGapPx;
    // Panels whose bars stand at the same places for the same settings (a study's models each
    // run every hook and cap) share their labels, under each column's lowest panel: labels
    // under every panel would take the bars' room.
    const auto places = [](const BarPanel& p) {
        QStringList out;
        for (std::size_t i = 0; i < p.groups.size(); ++i) {
            QVariantMap axes = p.groups[i].first().axes;
            axes.remove("model");
            axes.remove("repeat");
            QStringList values;
            for (auto it = axes.begin(); it != axes.end(); ++it) {
                values << it.key() + '=' + it.value().toString();
            }
            out << QString::number(p.keys[i]) + ' ' + values.join(' ');
        }
        return out;
    };
    const bool shared = std::all_of(panels.begin(), panels.end(), [&](const BarPanel& p) {
        return places(p) == places(panels.front());
    });
    const FacetOptions options{.leastPx = int(double(most) * perLabel) + kBarPanelAxisPx,
                               .ownX = !shared,
                               .topMarginPx = 1}; // a bar is never drawn up to the top
    const std::vector<QCPAxisRect*> rects = makeFacets(plot, names, style, options);
    QList<DrawnMark> marks;
    for (std::size_t i = 0; i < panels.size(); ++i) {
        panels[i].rect = rects[i];
        for (std::size_t k = 0; k < panels[i].groups.size(); ++k) {
            const report::RepeatGroup& g = panels[i].groups[k];
            // A click on a group's bar picks the repeat with the median step.
            const auto s = report::spreadOf(g, [](const store::CellRow& c) { return c.stepMs; });
            marks.append({panels[i].name, panels[i].keys[k], 0.0,
                          (s ? s->representative : &g.first())->id, idsOf(g),
                          sizes.isEmpty() ? 0.45 : kPairedSpan / sizes.size() / 2});
        }
    }
    keepMarks(plot, marks);
    if (panels.size() > 1) {
        setFacetLabel(plot, Qt::Vertical, shortY);
    }
    return panels;
}

// A bar's colour at its world size's place among `shades` side by side: the largest world size
// the colour itself, each smaller one paler.
QColor shaded(const QColor& colour, int shade, int shades) {
    if (shades < 2 || shade >= shades - 1) {
        return colour;
    }
    const double t = 0.55 * double(shades - 1 - shade) / double(shades - 1);
    return QColor::fromRgbF(float(colour.redF() + (1 - colour.redF()) * t),
                            float(colour.greenF() + (1 - colour.greenF()) * t),
                            float(colour.blueF() + (1 - colour.blueF()) * t));
}

// Which bar of a label is which world size, where they stand side by side: said in the axis
// title ("bucket_cap_mb (pale: 1 rank)"), whose line the figure has anyway, not in a legend row.
QString sideBySideNote(const QVector<int>& sizes) {
    if (sizes.size() < 2) {
        return {};
    }
    const auto ranks = spec::mapped<QStringList>(sizes, report::ranksText);
    return sizes.size() == 2 ? QString(" (pale: %1)").arg(ranks.front())
                             : QString(" (palest to darkest: %1)").arg(ranks.join(", "));
}

// A panel's bars named on its key axis, and its value axis fitted to `values`, linear from zero
// (stacked bars, and a ratio around 1, read best so). A bar's label: the values that tell it
// from the other bars (the axis title names their axes). Few bars take one value a line,
// upright; many take one line, turned to run up the axis, so a label needs only its line's
// height along the axis, and run in groups (runAxis) named above the bars, with room left for
// the names. A panel's (facets.h) model does not vary in it, so no label says it.
void categoryAxis(const BarPanel& panel, const QVector<int>& sizes, const QVector<double>& values) {
    const std::vector<const store::CellRow*> cells = firstCells(panel.labels);
    QStringList varying = barAxes(panel.labels, panel.leftOut);
    const QString run = runAxis(panel.labels, panel.leftOut);
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
    QCPAxis* axis = panel.keyAxis();
    categoryTicks(axis, labels);
    QCustomPlot& plot = *axis->parentPlot();
    if (axis == plot.xAxis) { // the panels' title is the first panel's
        setFacetLabel(plot, Qt::Horizontal, varying.join(" \u00b7 ") + sideBySideNote(sizes));
    }
    axis->setTickLabelRotation(upright ? 0 : -90);
    axis->setRange(0.4, double(cells.size()) + 0.6);
    fitAxis(panel.valueAxis(), values, true, false);
    if (!runs.isEmpty()) {
        categoryRuns(axis, runs);
        const QCPRange r = panel.valueAxis()->range();
        panel.valueAxis()->setRangeUpper(r.upper + r.size() * kRunNamesHeadroom);
    }
}

// Each group's flagged repeats: one marker at its bar's place (the first flagged repeat's,
// counting the others) in its panel, never a value; the legend's entry for them where there is
// one, and what the figure says when it draws nothing.
void flagGroups(QCustomPlot& plot, const std::vector<BarPanel>& panels, const FigureStyle& style) {
    for (const BarPanel& panel : panels) {
        for (std::size_t i = 0; i < panel.groups.size(); ++i) {
            std::vector<const store::CellRow*> flagged;
            std::ranges::copy_if(panel.groups[i].cells, std::back_inserter(flagged),
                                 [](const store::CellRow* c) { return flaggedCell(*c); });
            if (!flagged.empty()) {
                const QString& status = flagged.front()->status;
                addFlaggedMarker(plot, panel.keys[i], flagged.front()->id,
                                 flagged.size() == 1
                                     ? status
                                     : QString("%1 \u00d7%2").arg(status).arg(flagged.size()),
                                 panel.rect);
            }
        }
    }
    addFlaggedLegendEntry(plot);
    sayWhenEmpty(plot, kNoTracedCell, style);
}

// A study's series are too many for one panel: a panel per model then, the hook the colour and
// the cap the marker in each, on one scale, so that the models compare at a glance. Empty for one
// panel; otherwise the model leaves `varying` and the axes take titles short enough for a panel.
QStringList overheadPanels(QCustomPlot& plot, const OverheadMarks& marks, QStringList& varying) {
    const report::SeriesStyles allStyles = report::seriesStyles(marks.drawn, varying);
    const auto allSeries = ascendingDistinct<QStringList>(
        marks.marks, [&](const OverheadMark& m) { return allStyles.seriesKey(m.group->first()); });
    // However many models: a world-size panel is narrow (kWorldSizePanelPx).
    const QStringList panels = modelPanels(marks.drawn, std::size_t(allSeries.size()),
                                           kSeriesPerPanel, std::numeric_limits<qsizetype>::max());
    if (!panels.isEmpty()) {
        varying.removeAll("model");
        // Short enough for a narrow panel; the title says of what.
        plot.yAxis->setLabel("% of step");
        plot.xAxis->setLabel("ranks");
    }
    return panels;
}

// Each panel's world sizes as integer ticks (logarithmic where they span decades) and its value
// axis over every panel's values, so that the panels share one scale.
void worldSizeAxes(const std::vector<QCPAxisRect*>& rects, const QVector<double>& sizes,
                   const QVector<double>& values) {
    for (QCPAxisRect* rect : rects) {
        QCPAxis* x = rect->axis(QCPAxis::atBottom);
        integerTicks(x, sizes);
        if (spansDecades(sizes)) {
            x->setScaleType(QCPAxis::stLogarithmic);
            x->setRange(sizes.front() / 1.5, sizes.back() * 1.5);
        } else if (!sizes.isEmpty()) {
            x->setRange(sizes.front() - 0.5, sizes.back() + 0.5);
        }
        fitAxis(rect->axis(QCPAxis::atLeft), values, true);
    }
}

void drawOverheadVsWorldSize(QCustomPlot& plot, const report::ReportData& data,
                             const FigureStyle& style) {
    resetFigure(plot, "Exposed comm. vs world size", "world size (ranks)",
                "exposed comm. (% of step)", style);
    // One series per combination of every axis that varies but the world size (the x axis);
    // a point per world size, the median of its repeats with whiskers to their min and max
    // (each repeat a point of its own when the style asks). The first varying axis (the hook,
    // when it varies) gives the colour, the second the marker, any further one a shade of the
    // colour; with nothing varying, the layer's colour.
    const OverheadMarks marks = overheadMarks(data, style.eachRepeat);
    QStringList varying = report::varyingAxes(marks.drawn, {"world_size", "repeat"});
    const QStringList panels = overheadPanels(plot, marks, varying);
    // A world-size axis has a few ticks: panels narrower than the cap study's, in few rows.
    const std::vector<QCPAxisRect*> rects =
        makeFacets(plot, panels, style, {.leastPx = kWorldSizePanelPx, .mostRows = kMostPanelRows});
    const auto panelOf = [&](const store::CellRow& c) {
        return panels.contains(c.model) ? c.model : QString();
    };
    const report::SeriesStyles styles = report::seriesStyles(marks.drawn, varying);
    QMap<QString, QMultiMap<int, const OverheadMark*>> series; // each one's points by world size
    QVector<double> values;
    QList<DrawnMark> drawn;
    int mostRepeats = 0;
    for (const OverheadMark& m : marks.marks) {
        const store::CellRow& first = m.group->first();
        series[panelOf(first) + '\n' + styles.seriesKey(first)].insert(first.worldSize, &m);
        values << m.spread.low << m.spread.high;
        mostRepeats = std::max(mostRepeats, m.spread.repeats);
        drawn.append({panelOf(first), double(first.worldSize), m.spread.median,
                      m.spread.representative->id, idsOf(*m.group)});
    }
    keepMarks(plot, drawn);
    for (const auto& bySize : series) {
        const store::CellRow& first = bySize.first()->group->first();
        QCPAxisRect* rect = facetRect(plot, panelOf(first));
        QCPGraph* g = plot.addGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
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
        const bool spread = std::any_of(bySize.begin(), bySize.end(),
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
        styleLegend(plot, styles);
    }
    addSpreadLegendEntry(plot, mostRepeats);
    worldSizeAxes(rects, worldSizes(data), values);
    for (const auto& c : data.cells) {
        if (flaggedCell(c) && !c.isSweep()) {
            addFlaggedMarker(plot, c.worldSize, c.id, c.status, facetRect(plot, panelOf(c)));
        }
    }
    addFlaggedLegendEntry(plot);
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
        // A colour per hook where the pools differ in it (each is fitted apart), else the layer's.
        const QColor colour = hooks.size() > 1 ? hookColour(it->hook) : layerColour(it->layer);
        QMap<int, QCPGraph*> points;
        double minBytes = 0, maxBytes = 0;
        for (const auto& s : it->samples) {
            QCPGraph*& g = points[s.worldSize];
            if (!g) {
                g = plot.addGraph();
                g->setName(QString("%1, %2").arg(it.key(), report::ranksText(s.worldSize)));
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
    QList<DrawnMark> buckets; // each bucket drawn, by its cell
    for (const auto& c : data.cells) {
        if (report::bucketsCommunicated(c)) {
            for (const auto& s : data.bucketsByCell.value(c.id)) {
                buckets.append({{}, s.bytes / spec::kMiB, s.seconds * 1e3, c.id, {c.id}});
            }
        }
    }
    keepMarks(plot, buckets);
    sayWhenEmpty(plot,
                 "No bucket crossed a link: no complete DDP cell of 2 or more\nranks whose hook "
                 "sends (hook: local sends nothing)",
                 style);
}

void drawStackedBreakdown(QCustomPlot& plot, const report::ReportData& data,
                          const FigureStyle& style) {
    resetFigure(plot, "Median step by kind (rank 0)", "", "ms per step", style);
    QVector<int> sizes;
    const std::vector<BarPanel> panels = barPanels(plot, data, style, sizes, "ms");
    const int shades = std::max(1, int(sizes.size()));
    // A bar per group of repeats: each kind's median over the complete repeats, stacked, and a
    // whisker from the shortest repeat's step to the longest's.
    const auto total = [](const store::CellRow& c) -> std::optional<double> {
        if (!c.computeMs || !c.exposedCommMs) {
            return std::nullopt;
        }
        const double kinds = *c.computeMs + *c.exposedCommMs + c.bookkeepingMs.value_or(0.0);
        return std::max(kinds, c.stepMs.value_or(kinds));
    };
    // The kinds stacked, bottom to top; each kind's median is of its own steps, and the trace
    // leaves gaps between slices: what the step has beyond the three is drawn, so the bar is the
    // step.
    const std::pair<const char*, QColor> kinds[] = {{"compute", computeColour()},
                                                    {"exposed comm.", communicationColour()},
                                                    {"bookkeeping", bookkeepingColour()},
                                                    {"rest of the step", QColor(170, 170, 170)}};
    using Ms = std::optional<double> store::CellRow::*;
    const Ms measured[] = {&store::CellRow::computeMs, &store::CellRow::exposedCommMs,
                           &store::CellRow::bookkeepingMs};
    struct Stack {
        QVector<double> keys;
        std::array<QVector<double>, std::extent_v<decltype(kinds)>> parts; // a kind's bars each
    };
    for (const BarPanel& panel : panels) {
        const auto& groups = panel.groups;
        std::vector<Stack> stacks(std::size_t(shades), Stack{}); // a stack of bars per shade
        QVector<double> keys, tops, lows, highs;
        int mostRepeats = 0;
        for (std::size_t i = 0; i < groups.size(); ++i) {
            const auto steps = report::spreadOf(groups[i], total);
            if (!steps) {
                continue;
            }
            Stack& stack = stacks[std::size_t(panel.shades[i])];
            stack.keys << panel.keys[i];
            double sum = 0;
            for (std::size_t k = 0; k < std::size(measured); ++k) {
                const auto s = report::spreadOf(groups[i], [&](const store::CellRow& c) {
                    return total(c) ? std::optional<double>((c.*measured[k]).value_or(0.0))
                                    : std::nullopt;
                });
                stack.parts[k] << (s ? s->median : 0.0);
                sum += stack.parts[k].back();
            }
            stack.parts.back() << std::max(0.0, steps->median - sum);
            keys << panel.keys[i];
            tops << sum + stack.parts.back().back();
            lows << steps->low;
            highs << steps->high;
            mostRepeats = std::max(mostRepeats, steps->repeats);
        }
        for (int shade = 0; shade < shades; ++shade) {
            const Stack& stack = stacks[std::size_t(shade)];
            QCPBars* below = nullptr;
            for (std::size_t k = 0; k < std::size(kinds); ++k) {
                QCPBars* b = addBars(panel.keyAxis(), panel.valueAxis(), kinds[k].first,
                                     shaded(kinds[k].second, shade, shades));
                b->setWidth(panel.width);
                b->setData(stack.keys, stack.parts[k]);
                if (&panel != &panels.front() || shade != shades - 1) {
                    b->removeFromLegend(); // each kind named once, whatever the panels
                }
                if (below) {
                    b->moveAbove(below);
                }
                below = b;
            }
        }
        if (mostRepeats > 1) {
            // Whiskers need a plottable whose value is the stack's top: bars hold their own part.
            QCPGraph* top = plot.addGraph(panel.keyAxis(), panel.valueAxis());
            top->setName("spread");
            top->removeFromLegend();
            top->setLineStyle(QCPGraph::lsNone);
            top->setData(keys, tops, true); // the bars' places are in order
            QCPErrorBars* whiskers = addSpread(top, QColor(60, 60, 60));
            for (int i = 0; i < keys.size(); ++i) {
                addSpreadPoint(whiskers, tops[i], lows[i], highs[i]);
            }
        }
        // No legend entry for the whiskers (the title says "median"): it would cost the bars room.
        categoryAxis(panel, sizes, tops + highs);
    }
    flagGroups(plot, panels, style);
}

// A ratio the analysis did not judge (one rank moves no data) is no disagreement: an outline,
// never a bar in the layer's colour.
QCPBars* notJudgedBars(QCPAxis* keys, QCPAxis* values, double width) {
    QCPBars* b = addBars(keys, values, "not judged (1 rank)", Qt::gray);
    b->setBrush(Qt::NoBrush);
    b->setPen(QPen(QColor(150, 150, 150), 1, Qt::DashLine));
    b->setWidth(width);
    return b;
}

// The agreement figure's legend, in entries without data: each layer of any world size once, in
// its colour (its bars are a shade per world size), the outline of a ratio not judged, and the
// tolerance lines (items, which a legend cannot list).
void agreementLegend(QCustomPlot& plot, const QStringList& layers, bool notJudged,
                     const QPen& tolerance) {
    for (const QString& layer : layers) {
        addBars(plot.xAxis, plot.yAxis, layer, layerColour(layer));
    }
    if (notJudged) {
        notJudgedBars(plot.xAxis, plot.yAxis, BarPanel{}.width); // its width shows nowhere
    }
    QCPGraph* toleranceEntry = plot.addGraph();
    toleranceEntry->setName(
        QString::fromUtf8("flagged past \u00b1%1 %").arg(analysis::kAgreementTolerance * 100));
    toleranceEntry->setPen(tolerance);
}

void drawAgreement(QCustomPlot& plot, const report::ReportData& data, const FigureStyle& style) {
    resetFigure(plot, "Hook vs backend per step", "", "backend / hook", style);
    QVector<int> sizes;
    const std::vector<BarPanel> panels = barPanels(plot, data, style, sizes, "ratio");
    const int shades = std::max(1, int(sizes.size()));
    QStringList layers; // each layer drawn, named once in the legend (agreementLegend)
    bool anyNotJudged = false;
    const auto ratio = [](const store::CellRow& c) { return c.hookTraceAgreement; };
    const QPen agree(Qt::darkGray, 1, Qt::SolidLine);
    const QPen tolerance(flaggedColour(), 1, Qt::DashLine);
    for (const BarPanel& panel : panels) {
        const auto& groups = panel.groups;
        QMap<QPair<QString, int>, QCPBars*> byLayer; // per layer and shade
        QMap<QCPBars*, QCPErrorBars*> whiskers;
        QCPBars* notJudged = nullptr;
        QVector<double> values{1.0 + analysis::kAgreementTolerance};
        for (std::size_t i = 0; i < groups.size(); ++i) {
            const auto s = report::spreadOf(groups[i], ratio);
            if (!s) {
                continue;
            }
            const store::CellRow& c = *s->representative;
            QCPBars* b = nullptr;
            if (!c.agreementFlagged && !c.agreementReason.isEmpty()) {
                if (!notJudged) {
                    notJudged = notJudgedBars(panel.keyAxis(), panel.valueAxis(), panel.width);
                    notJudged->removeFromLegend();
                    anyNotJudged = true;
                }
                b = notJudged;
            } else {
                const int shade = panel.shades[i];
                QCPBars*& layer = byLayer[{c.layer, shade}];
                if (!layer) {
                    layer = addBars(panel.keyAxis(), panel.valueAxis(), c.layer,
                                    shaded(layerColour(c.layer), shade, shades));
                    layer->setWidth(panel.width);
                    layer->removeFromLegend();
                    layers << c.layer;
                }
                b = layer;
            }
            b->addData(panel.keys[i], s->median);
            QCPErrorBars*& w = whiskers[b];
            if (!w && s->repeats > 1) {
                w = addSpread(b, QColor(60, 60, 60));
                // Bars before the first with a spread have none: zero-length whiskers.
                for (int k = 0; k + 1 < b->dataCount(); ++k) {
                    w->addData(0.0, 0.0);
                }
            }
            if (w) {
                addSpreadPoint(w, s->median, s->low, s->high);
            }
            values << s->low << s->high;
        }
        categoryAxis(panel, sizes, values);
        for (const double level :
             {1.0 - analysis::kAgreementTolerance, 1.0, 1.0 + analysis::kAgreementTolerance}) {
            auto* line = new QCPItemStraightLine(&plot);
            line->setClipAxisRect(panel.rect);
            for (QCPItemPosition* p : {line->point1, line->point2}) {
                p->setAxes(panel.keyAxis(), panel.valueAxis());
            }
            line->point1->setCoords(0, level);
            line->point2->setCoords(1, level);
            line->setPen(level == 1.0 ? agree : tolerance);
        }
    }
    layers.removeDuplicates();
    agreementLegend(plot, layers, anyNotJudged, tolerance);
    flagGroups(plot, panels, style);
}

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

// A bar's mark: a dashed box over it, in its panel, the height of the axes below the name of the
// bar's run where bars run in groups (not across it); a box the last selection left, where there
// is one.
void boxBar(QCustomPlot& plot, const DrawnMark& m, std::vector<QCPItemRect*>& freeBoxes) {
    QCPItemRect* box = nullptr;
    if (freeBoxes.empty()) {
        box = new QCPItemRect(&plot);
        box->setObjectName("selection");
    } else {
        box = freeBoxes.back();
        freeBoxes.pop_back();
        box->setVisible(true);
    }
    QCPAxisRect* panel = facetRect(plot, m.panel);
    box->setClipAxisRect(panel);
    for (QCPItemPosition* p : {box->topLeft, box->bottomRight}) {
        p->setAxes(panel->axis(QCPAxis::atBottom), panel->axis(QCPAxis::atLeft));
        p->setAxisRect(panel);
    }
    // The name's bottom follows it through every layout (it is broken into lines to fit).
    QCPItemText* run = categoryRunOf(plot, int(std::lround(m.key)), panel);
    box->topLeft->setParentAnchorY(run ? run->bottom : nullptr);
    box->topLeft->setTypeY(run ? QCPItemPosition::ptAbsolute : QCPItemPosition::ptAxisRectRatio);
    box->bottomRight->setTypeY(QCPItemPosition::ptAxisRectRatio);
    box->topLeft->setCoords(m.key - m.halfWidth, run ? kBoxBelowRunPx : 0.0);
    box->bottomRight->setCoords(m.key + m.halfWidth, 1.0);
    box->setPen(QPen(Qt::black, 2, Qt::DashLine));
}

// What the figures that draw a group's median draw of each repeat, and with how many digits.
struct RepeatValue {
    const char* figure;
    const char* what;
    int digits;
    std::optional<double> (*value)(const store::CellRow&);
};
const RepeatValue kRepeatValues[] = {
    {"overhead_vs_world_size", "exposed %", 2, overheadPercent},
    {"time_breakdown", "step ms", 2,
     [](const store::CellRow& c) { return c.complete() ? c.stepMs : std::nullopt; }},
    {"hook_trace_agreement", "backend / hook", 3,
     [](const store::CellRow& c) { return c.complete() ? c.hookTraceAgreement : std::nullopt; }},
};

// Where a figure draws a group's median: the group's repeats and their values, so that the
// repeats behind a mark are named where it is hovered.
QString repeatsText(const QCustomPlot& plot, const char* figure, const report::ReportData& data,
                    const store::CellRow& cell) {
    const auto* drawn = std::ranges::find_if(
        kRepeatValues, [&](const RepeatValue& r) { return QString(figure) == r.figure; });
    if (eachRepeat(plot) || drawn == std::end(kRepeatValues)) {
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
        const auto v = drawn->value(*c);
        each << QString("r%1 %2").arg(c->repeat).arg(v ? QString::number(*v, 'f', drawn->digits)
                                                       : c->status);
    }
    return QString("median of %1 repeats (%2): %3 (Results > Each repeat draws them)")
        .arg(cells.size())
        .arg(drawn->what, each.join(", "));
}

} // namespace

bool flaggedCell(const store::CellRow& c) {
    return c.status == "incomplete" || c.status == "failed" || c.status == "stopped";
}

const store::CellRow* findCell(const report::ReportData& data, const QString& cellId) {
    const auto it = std::ranges::find(data.cells, cellId, &store::CellRow::id);
    return it == data.cells.end() ? nullptr : &*it;
}

void keepMarks(QCustomPlot& plot, const QList<DrawnMark>& marks) {
    plot.setProperty(kDrawnMarks, QVariant::fromValue(marks));
}

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
    const std::vector<const store::CellRow*> cells = axisCells(data);
    std::vector<report::RepeatGroup> groups =
        each ? report::singleCellGroups(cells) : report::repeatGroups(cells);
    // By the varying axes' values in their order: the bars of a run (runAxis, the first axis)
    // side by side, and within it by the next axis.
    const QStringList axes = barAxes(groups, leftOutOf(each));
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
    if (findCell(data, cellId)) {
        const QString name(figure);
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
        } else if (name == "sweep_bandwidth") {
            markSweepCell(plot, data, cellId, mark);
        } else {
            // Thin rings on the buckets: a cell has many, and the marks must not hide the others.
            const bool thin = name == "bucket_time_vs_bytes";
            const QCPScatterStyle ring(QCPScatterStyle::ssCircle,
                                       thin ? QPen(QColor(0, 0, 0, 90), 1.0) : QPen(Qt::black, 2.5),
                                       Qt::NoBrush, thin ? 7 : 15);
            // A figure that says it has nothing to draw has no bar to mark.
            const bool empty = plot.findChild<QCPItemText*>("empty");
            QHash<QString, QCPGraph*> rings; // of the cell's group's points, per panel
            for (const DrawnMark& m : drawnMarks(plot)) {
                if (!m.cells.contains(cellId) || (m.halfWidth > 0 && empty)) {
                    continue;
                }
                if (m.halfWidth > 0) {
                    boxBar(plot, m, freeBoxes);
                    continue;
                }
                QCPGraph*& g = rings[m.panel];
                if (!g) {
                    g = mark(facetRect(plot, m.panel));
                    g->setScatterStyle(ring);
                }
                g->addData(m.key, m.value);
            }
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
    for (const QCPItemText* t : plot.findChildren<QCPItemText*>("flagged")) {
        const QRectF r(t->topLeft->pixelPosition(), t->bottomRight->pixelPosition());
        if (r.normalized().adjusted(-4, -4, 4, 4).contains(pos)) {
            return t->property("cellId").toString();
        }
    }
    if (QString(figure) == "sweep_bandwidth") {
        const auto pick = sweepPickAt(plot, data, pos, kPickRadiusPx);
        return pick ? pick->line.cell->id : QString();
    }
    // On every mouse move: each panel found once (facetRect walks the layout), not per mark.
    QHash<QString, const QCPAxisRect*> panels;
    QString best;
    double bestDist = kPickRadiusPx;
    for (const DrawnMark& m : drawnMarks(plot)) {
        const QCPAxisRect*& panel = panels[m.panel];
        panel = panel ? panel : facetRect(plot, m.panel);
        const QCPAxis* keys = panel->axis(QCPAxis::atBottom);
        if (m.halfWidth > 0) {
            // The bar under the pointer in the panel it is in (with the labels under the panel).
            if (panel->outerRect().contains(pos.toPoint()) &&
                std::abs(keys->pixelToCoord(pos.x()) - m.key) < m.halfWidth) {
                return m.pick;
            }
        } else if (const double d =
                       std::hypot(keys->coordToPixel(m.key) - pos.x(),
                                  panel->axis(QCPAxis::atLeft)->coordToPixel(m.value) - pos.y());
                   d < bestDist) {
            bestDist = d;
            best = m.pick;
        }
    }
    return best;
}

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
    QStringList lines{
        c->id, QString("%1 · %2 · %3").arg(c->status, c->layer, report::ranksText(c->worldSize))};
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
