// SPDX-License-Identifier: GPL-3.0-or-later
#include "tuning_plot.h"

#include "result_plots.h"

#include <qcustomplot.h>

#include <QMap>

#include <algorithm>
#include <iterator>

namespace commprof::widgets {
namespace {

constexpr double kLineWidth = 1.6;
constexpr double kMarkerPx = 6;
constexpr qsizetype kNamedGroups = 3; // a note names this many groups, and counts the rest

// A marker per model, layer and world size (in their order of appearance): with one colour per
// hook, it tells two models' points apart.
QCPScatterStyle::ScatterShape shapeMarker(int index) {
    static const QCPScatterStyle::ScatterShape kShapes[] = {
        QCPScatterStyle::ssDisc, QCPScatterStyle::ssSquare, QCPScatterStyle::ssDiamond,
        QCPScatterStyle::ssTriangleInverted, QCPScatterStyle::ssCrossSquare};
    return kShapes[index % int(std::size(kShapes))];
}

QString shapeKey(const analysis::CapGroup& g) {
    return QString("%1|%2|%3").arg(g.model, g.layer).arg(g.worldSize);
}

// With several models or placements the legend lists each hook's colour once and each marker
// once, not every group: entries grow with the hooks plus the models, not their product.
void addGroupEntries(QCustomPlot& plot, const std::vector<const analysis::CapGroup*>& drawn,
                     const QStringList& shapes) {
    QStringList hooks;
    for (const analysis::CapGroup* g : drawn) {
        if (!hooks.contains(g->hook)) {
            hooks << g->hook;
        }
    }
    for (const QString& hook : hooks) {
        QCPGraph* entry = plot.addGraph();
        entry->setName(hook);
        entry->setPen(QPen(hookColour(hook), kLineWidth));
    }
    const QColor grey(90, 90, 90);
    for (int i = 0; i < shapes.size(); ++i) {
        const QStringList parts = shapes[i].split('|');
        const bool onePlacement = std::all_of(drawn.begin(), drawn.end(), [&](const auto* g) {
            return g->layer == drawn.front()->layer && g->worldSize == drawn.front()->worldSize;
        });
        QCPGraph* entry = plot.addGraph();
        entry->setName(onePlacement
                           ? parts[0]
                           : QString("%1 \u00b7 %2 ws%3").arg(parts[0], parts[1], parts[2]));
        entry->setPen(Qt::NoPen);
        entry->setScatterStyle(QCPScatterStyle(shapeMarker(i), grey, grey, kMarkerPx));
    }
}

QString groupName(const analysis::CapGroup& g) {
    return QString("%1 · %2 ws%3 · %4").arg(g.model, g.layer).arg(g.worldSize).arg(g.hook);
}

// A legend entry names only what varies between the drawn groups (the hook always): with one
// layer and world size, "mlp2m · allreduce"; the title then says the layer and world size.
struct GroupNames {
    bool models = false, placements = false;
    explicit GroupNames(const std::vector<analysis::CapGroup>& groups) {
        for (const analysis::CapGroup& g : groups) {
            models |= g.model != groups.front().model;
            placements |=
                g.layer != groups.front().layer || g.worldSize != groups.front().worldSize;
        }
    }
    QString operator()(const analysis::CapGroup& g) const {
        QStringList parts;
        if (models) {
            parts << g.model;
        }
        if (placements) {
            parts << QString("%1 ws%2").arg(g.layer).arg(g.worldSize);
        }
        return (parts << g.hook).join(" · ");
    }
};

QCPGraph* addGraph(QCustomPlot& plot, const QString& name, const QPen& pen,
                   const QCPScatterStyle& scatter, bool line) {
    QCPGraph* g = plot.addGraph();
    g->setName(name);
    g->setPen(pen);
    g->setScatterStyle(scatter);
    g->setLineStyle(line ? QCPGraph::lsLine : QCPGraph::lsNone);
    return g;
}

// Legend entries that say what a line style or marker means, in grey.
void addStyleEntries(QCustomPlot& plot) {
    const QColor grey(90, 90, 90);
    addGraph(plot, "predicted step", QPen(grey, kLineWidth), QCPScatterStyle::ssNone, true);
    addGraph(plot, "measured step (filled)", QPen(grey),
             QCPScatterStyle(QCPScatterStyle::ssDisc, grey, grey, kMarkerPx), false);
    addGraph(plot, "predicted exposed comm.", QPen(grey, kLineWidth, Qt::DashLine),
             QCPScatterStyle::ssNone, true);
    addGraph(plot, "measured exposed comm. (open)", QPen(grey),
             QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(grey, 1.2), Qt::NoBrush, kMarkerPx),
             false);
    addGraph(plot, "recommended cap", QPen(Qt::black),
             QCPScatterStyle(QCPScatterStyle::ssTriangle, QPen(Qt::black, 1.5), Qt::NoBrush, 11),
             false);
}

} // namespace

std::vector<TuningPoint> tuningPoints(const report::ReportData& data) {
    std::vector<TuningPoint> out;
    if (!data.tuning) {
        return out;
    }
    for (const analysis::CapGroup& g : data.tuning->groups) {
        for (const analysis::CapCandidate& c : g.candidates) {
            if (c.measuredStepMs) {
                out.push_back({c.measuredCell, c.capMb, *c.measuredStepMs});
            }
        }
    }
    return out;
}

void drawTuning(QCustomPlot& plot, const report::ReportData& data, const FigureStyle& style) {
    QString title = "Step time vs bucket cap";
    if (data.tuning && !data.tuning->groups.empty() &&
        !GroupNames(data.tuning->groups).placements) {
        const analysis::CapGroup& g = data.tuning->groups.front();
        title += QString(" (%1, world size %2)").arg(g.layer).arg(g.worldSize);
    }
    resetFigure(plot, title, "bucket cap (MiB)", "per step (ms)", style);
    plot.xAxis->setScaleType(QCPAxis::stLogarithmic);
    QSharedPointer<QCPAxisTickerLog> ticker(new QCPAxisTickerLog);
    ticker->setLogBase(2);
    ticker->setSubTickCount(0);
    plot.xAxis->setTicker(ticker);
    plot.xAxis->setNumberFormat("g");

    QMap<QString, QStringList> unpredicted; // reason -> the groups it holds for
    QVector<double> caps, times;
    std::vector<const analysis::CapGroup*> drawn;
    QStringList shapes; // model, layer and world size of each group: a marker each
    if (data.tuning && !data.tuning->groups.empty()) {
        const GroupNames names(data.tuning->groups);
        for (const analysis::CapGroup& g : data.tuning->groups) {
            if (!shapes.contains(shapeKey(g))) {
                shapes << shapeKey(g);
            }
        }
        for (const analysis::CapGroup& g : data.tuning->groups) {
            if (g.candidates.empty()) {
                unpredicted[g.reason] << groupName(g);
                continue;
            }
            drawn.push_back(&g);
            const QColor colour = hookColour(g.hook);
            const QCPScatterStyle::ScatterShape marker =
                shapeMarker(int(shapes.indexOf(shapeKey(g))));
            QCPGraph* step = addGraph(plot, names(g), QPen(colour, kLineWidth),
                                      QCPScatterStyle(marker, colour, colour, kMarkerPx - 2), true);
            if (shapes.size() > 1) {
                step->removeFromLegend(); // addGroupEntries names its hook and marker
            }
            QCPGraph* exposed = addGraph(plot, {}, QPen(colour, kLineWidth, Qt::DashLine),
                                         QCPScatterStyle::ssNone, true);
            exposed->removeFromLegend();
            QCPGraph* measured = addGraph(
                plot, {}, QPen(colour), QCPScatterStyle(marker, colour, colour, kMarkerPx), false);
            measured->removeFromLegend();
            // QCustomPlot fills a disc whatever the brush: its open form is the circle.
            const QCPScatterStyle::ScatterShape open =
                marker == QCPScatterStyle::ssDisc ? QCPScatterStyle::ssCircle : marker;
            QCPGraph* measuredExposed =
                addGraph(plot, {}, QPen(colour),
                         QCPScatterStyle(open, QPen(colour, 1.2), Qt::NoBrush, kMarkerPx), false);
            measuredExposed->removeFromLegend();
            for (const analysis::CapCandidate& c : g.candidates) {
                step->addData(c.capMb, c.predictedStepMs);
                caps << c.capMb;
                times << c.predictedStepMs;
                // Nothing exposed (a hook that sends nothing) has no place on the log axis that
                // steps of hundreds of ms beside exposed ms need, and would force it linear.
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
                    QCPGraph* mark =
                        addGraph(plot, {}, QPen(Qt::black),
                                 QCPScatterStyle(QCPScatterStyle::ssTriangle, QPen(Qt::black, 1.5),
                                                 Qt::NoBrush, 11),
                                 false);
                    mark->setObjectName("recommended");
                    mark->removeFromLegend();
                    mark->addData(c.capMb, c.predictedStepMs);
                }
            }
        }
    }
    if (!drawn.empty()) {
        if (shapes.size() > 1) {
            addGroupEntries(plot, drawn, shapes);
        }
        addStyleEntries(plot);
    }
    // Incomplete cells of a cap study: at their cap, in the flagged band.
    for (const auto& c : data.cells) {
        if (data.tuning && !c.isSweep() && flaggedCell(c) && c.axes.contains("bucket_cap_mb")) {
            const double cap = c.axes.value("bucket_cap_mb").toDouble();
            if (cap > 0) {
                addFlaggedMarker(plot, cap, c.id, c.status);
                caps << cap;
            }
        }
    }
    if (!caps.isEmpty()) {
        const auto [lo, hi] = std::minmax_element(caps.begin(), caps.end());
        plot.xAxis->setRange(*lo / 1.5, *hi * 1.5);
    } else {
        plot.xAxis->setRange(0.125, 128);
    }
    fitAxis(plot.yAxis, times, true); // steps of hundreds of ms beside exposed ms: log
    if (drawn.empty()) {
        sayWhenEmpty(plot,
                     data.tuning ? "No cap study could be predicted (see the note below)"
                                 : "No bucket-cap study in these results:\nlist bucket_cap_mb "
                                   "values in the matrix (configs/experiments/tuning.yaml)",
                     style);
    }
    QStringList notes;
    for (auto it = unpredicted.begin(); it != unpredicted.end(); ++it) {
        // A few groups by name, the rest counted: a study's every group must not fill the page.
        QStringList named = it.value().mid(0, kNamedGroups);
        if (it.value().size() > kNamedGroups) {
            named << QString("%1 more").arg(it.value().size() - kNamedGroups);
        }
        notes << QString("not predicted, %1: %2").arg(named.join("; "), it.key());
    }
    if (!notes.isEmpty()) {
        addNote(plot, notes.join('\n'), style);
    }
}

} // namespace commprof::widgets
