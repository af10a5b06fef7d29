// SPDX-License-Identifier: GPL-3.0-or-later
#include "tuning_plot.h"

#include "facets.h"
#include "readable_ticker.h"
#include "result_plots.h"

#include <qcustomplot.h>

#include <QMap>
#include <QSet>

#include <algorithm>

namespace commprof::widgets {
namespace {

constexpr double kLineWidth = 1.6;
constexpr double kMarkerPx = 6;
constexpr qsizetype kNamedGroups = 3; // a note names this many groups, and counts the rest

QString groupName(const analysis::CapGroup& g) {
    return QString("%1 · %2 ws%3 · %4").arg(g.model, g.layer).arg(g.worldSize).arg(g.hook);
}

// The first group the figure draws (one with candidates), or null.
const analysis::CapGroup* firstDrawn(const std::vector<analysis::CapGroup>& groups) {
    const auto it = std::find_if(groups.begin(), groups.end(),
                                 [](const analysis::CapGroup& g) { return !g.candidates.empty(); });
    return it == groups.end() ? nullptr : &*it;
}

// Whether the drawn groups differ in layer or world size. The groups not predicted (world size
// 1's) draw nothing, so they name no panel and count for nothing here.
bool placementsVary(const std::vector<analysis::CapGroup>& groups) {
    const analysis::CapGroup* first = firstDrawn(groups);
    return first && std::any_of(groups.begin(), groups.end(), [&](const analysis::CapGroup& g) {
               return !g.candidates.empty() &&
                      (g.layer != first->layer || g.worldSize != first->worldSize);
           });
}

// The panel of a group: its model, and its layer and world size where those vary; empty when
// every predicted group shares them (one panel, no facets).
struct Panels {
    QStringList names; // of the predicted groups' panels, in their order of appearance
    bool placements = false;
    explicit Panels(const std::vector<analysis::CapGroup>& groups)
        : placements(placementsVary(groups)) {
        for (const analysis::CapGroup& g : groups) {
            if (!g.candidates.empty() && !names.contains(of(g.model, g.layer, g.worldSize))) {
                names << of(g.model, g.layer, g.worldSize);
            }
        }
        if (names.size() < 2) {
            names.clear();
        }
    }
    QString of(const QString& model, const QString& layer, int worldSize) const {
        return placements ? QString("%1 \u00b7 %2 ws%3").arg(model, layer).arg(worldSize) : model;
    }
    // A group's or a cell's.
    template <class Placed> QString of(const Placed& p) const {
        return names.isEmpty() ? QString() : of(p.model, p.layer, p.worldSize);
    }
};

QCPGraph* addGraph(QCustomPlot& plot, QCPAxisRect* panel, const QString& name, const QPen& pen,
                   const QCPScatterStyle& scatter, bool line) {
    QCPGraph* g = plot.addGraph(panel->axis(QCPAxis::atBottom), panel->axis(QCPAxis::atLeft));
    g->setName(name);
    g->setPen(pen);
    g->setScatterStyle(scatter);
    g->setLineStyle(line ? QCPGraph::lsLine : QCPGraph::lsNone);
    return g;
}

// Legend entries that say what a line style or marker means, in grey.
void addStyleEntries(QCustomPlot& plot) {
    const QColor grey(90, 90, 90);
    QCPAxisRect* first = plot.xAxis->axisRect();
    addGraph(plot, first, "predicted step", QPen(grey, kLineWidth), QCPScatterStyle::ssNone, true);
    addGraph(plot, first, "measured step", QPen(grey),
             QCPScatterStyle(QCPScatterStyle::ssDisc, grey, grey, kMarkerPx), false);
    addGraph(plot, first, "predicted exposed", QPen(grey, kLineWidth, Qt::DashLine),
             QCPScatterStyle::ssNone, true);
    addGraph(plot, first, "measured exposed", QPen(grey),
             QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(grey, 1.2), Qt::NoBrush, kMarkerPx),
             false);
    addGraph(plot, first, "recommended cap", QPen(Qt::black),
             QCPScatterStyle(QCPScatterStyle::ssTriangle, QPen(Qt::black, 1.5), Qt::NoBrush, 11),
             false);
}

void logCapAxis(QCPAxis* axis, const QVector<double>& caps) {
    axis->setScaleType(QCPAxis::stLogarithmic);
    auto ticker = QSharedPointer<ClearLabels<QCPAxisTickerLog>>::create(axis);
    ticker->setLogBase(2);
    ticker->setSubTickCount(0);
    axis->setTicker(ticker);
    axis->setNumberFormat("g");
    if (!caps.isEmpty()) {
        const auto [lo, hi] = std::minmax_element(caps.begin(), caps.end());
        axis->setRange(*lo / 1.5, *hi * 1.5);
    } else {
        axis->setRange(0.125, 128);
    }
}

// One group's lines and markers in its panel; the values drawn go to `times`. Returns the line
// of its predicted step, the one its legend entry shows.
QCPGraph* drawGroup(QCustomPlot& plot, QCPAxisRect* panel, const analysis::CapGroup& g,
                    const report::ReportData& data, QVector<double>& times) {
    const QColor colour = hookColour(g.hook);
    QCPGraph* step =
        addGraph(plot, panel, g.hook, QPen(colour, kLineWidth),
                 QCPScatterStyle(QCPScatterStyle::ssDisc, colour, colour, kMarkerPx - 2), true);
    QCPGraph* exposed = addGraph(plot, panel, {}, QPen(colour, kLineWidth, Qt::DashLine),
                                 QCPScatterStyle::ssNone, true);
    QCPGraph* measured =
        addGraph(plot, panel, {}, QPen(colour),
                 QCPScatterStyle(QCPScatterStyle::ssDisc, colour, colour, kMarkerPx), false);
    // QCustomPlot fills a disc whatever the brush: its open form is the circle.
    QCPGraph* measuredExposed = addGraph(
        plot, panel, {}, QPen(colour),
        QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(colour, 1.2), Qt::NoBrush, kMarkerPx),
        false);
    for (QCPGraph* unnamed : {exposed, measured, measuredExposed}) {
        unnamed->removeFromLegend();
    }
    for (const analysis::CapCandidate& c : g.candidates) {
        step->addData(c.capMb, c.predictedStepMs);
        times << c.predictedStepMs;
        // Nothing exposed (a hook that sends nothing) has no place on the log axis that steps
        // of hundreds of ms beside exposed ms need, and would force it linear.
        if (c.predictedExposedMs > 0) {
            exposed->addData(c.capMb, c.predictedExposedMs);
            times << c.predictedExposedMs;
        }
        if (c.measuredStepMs) {
            measured->addData(c.capMb, *c.measuredStepMs);
            times << *c.measuredStepMs;
            const store::CellRow* cell = findCell(data, c.measuredCell);
            if (cell && cell->exposedCommMs && *cell->exposedCommMs > 0) {
                measuredExposed->addData(c.capMb, *cell->exposedCommMs);
                times << *cell->exposedCommMs;
            }
        }
        if (g.recommendedCapMb == c.capMb) {
            QCPGraph* mark = addGraph(
                plot, panel, {}, QPen(Qt::black),
                QCPScatterStyle(QCPScatterStyle::ssTriangle, QPen(Qt::black, 1.5), Qt::NoBrush, 11),
                false);
            mark->setObjectName("recommended");
            mark->removeFromLegend();
            mark->addData(c.capMb, c.predictedStepMs);
        }
    }
    return step;
}

// The groups that predict nothing, by reason: a few by name, the rest counted, so that a
// study's every group does not fill the page.
QString unpredictedNote(const std::vector<analysis::CapGroup>& groups) {
    QMap<QString, QStringList> byReason;
    QMap<QString, QSet<int>> sizes; // the world sizes of each reason's groups
    for (const analysis::CapGroup& g : groups) {
        if (g.candidates.empty()) {
            byReason[g.reason] << groupName(g);
            sizes[g.reason].insert(g.worldSize);
        }
    }
    QStringList notes;
    for (auto it = byReason.begin(); it != byReason.end(); ++it) {
        if (it.value().size() > 1 && sizes[it.key()].size() == 1) {
            // Groups that share their world size (one rank's, say) are counted, not named.
            const int ws = *sizes[it.key()].begin();
            QString why = it.key();
            if (const QString prefix = QString("world size %1: ").arg(ws); why.startsWith(prefix)) {
                why = why.mid(prefix.size());
            }
            // One rank's groups need no reason spelled out: the cap advice and recommend.csv
            // give it.
            notes << (ws == 1 ? QString("not predicted: the %1 groups at world size 1, where no "
                                        "rank sends")
                                    .arg(it.value().size())
                              : QString("not predicted, the %1 groups at world size %2: %3")
                                    .arg(it.value().size())
                                    .arg(ws)
                                    .arg(why));
            continue;
        }
        QStringList named = it.value().mid(0, kNamedGroups);
        if (it.value().size() > kNamedGroups) {
            named << QString("%1 more").arg(it.value().size() - kNamedGroups);
        }
        notes << QString("not predicted, %1: %2").arg(named.join("; "), it.key());
    }
    return notes.join('\n');
}

} // namespace

void drawTuning(QCustomPlot& plot, const report::ReportData& data, const FigureStyle& style) {
    const std::vector<analysis::CapGroup> none;
    const std::vector<analysis::CapGroup>& groups = data.tuning ? data.tuning->groups : none;
    QString title = "Step time vs bucket cap";
    // The drawn groups' shared placement, in the panels' short form a column's width holds.
    if (const analysis::CapGroup* first = firstDrawn(groups); first && !placementsVary(groups)) {
        title += QString(" (%1 ws%2)").arg(first->layer).arg(first->worldSize);
    }
    resetFigure(plot, title, "bucket cap (MiB)", "per step (ms)", style);
    const Panels panels(groups);
    if (!panels.names.isEmpty()) {
        plot.yAxis->setLabel("ms"); // a panel is too short for more; the title says of what
    }
    std::vector<QCPAxisRect*> rects = makeFacets(plot, panels.names, style);
    QVector<double> caps;
    QList<DrawnMark> measured; // the measured steps, each its cell's
    QMap<QCPAxisRect*, QVector<double>> times;
    QStringList named; // hooks with a legend entry: each once, whatever the panels
    for (const analysis::CapGroup& g : groups) {
        if (g.candidates.empty()) {
            continue;
        }
        QCPAxisRect* panel = facetRect(plot, panels.of(g));
        // In one panel the hook tells the lines apart; the legend names it once.
        QCPGraph* step = drawGroup(plot, panel, g, data, times[panel]);
        if (named.contains(g.hook)) {
            step->removeFromLegend();
        }
        named << g.hook;
        for (const analysis::CapCandidate& c : g.candidates) {
            caps << c.capMb;
            if (c.measuredStepMs) {
                measured.append(
                    {panels.of(g), c.capMb, *c.measuredStepMs, c.measuredCell, {c.measuredCell}});
            }
        }
    }
    keepMarks(plot, measured);
    if (!named.isEmpty()) {
        addStyleEntries(plot);
    }
    // Incomplete cells of a cap study: at their cap, in the flagged band of their panel.
    for (const auto& c : data.cells) {
        if (data.tuning && !c.isSweep() && flaggedCell(c) && c.axes.contains("bucket_cap_mb")) {
            const double cap = c.axes.value("bucket_cap_mb").toDouble();
            if (cap > 0) {
                addFlaggedMarker(plot, cap, c.id, c.status, facetRect(plot, panels.of(c)));
                caps << cap;
            }
        }
    }
    for (QCPAxisRect* panel : rects) {
        logCapAxis(panel->axis(QCPAxis::atBottom), caps);
        // Steps of hundreds of ms beside exposed ms: log.
        fitAxis(panel->axis(QCPAxis::atLeft), times.value(panel), true);
    }
    if (named.isEmpty()) {
        sayWhenEmpty(plot,
                     data.tuning ? "No cap study could be predicted (see the note below)"
                                 : "No bucket-cap study in these results:\nlist bucket_cap_mb "
                                   "values in the matrix (configs/experiments/tuning.yaml)",
                     style);
    }
    if (const QString note = unpredictedNote(groups); !note.isEmpty()) {
        addNote(plot, note, style);
    }
}

} // namespace commprof::widgets
