// SPDX-License-Identifier: GPL-3.0-or-later
#include "whatif_plot.h"

#include "spec/mapped.h"

#include <qcustomplot.h>

namespace commprof::widgets {
namespace {

// Bottom to top: the prediction, the replay, the recording (read from the top, as recorded).
constexpr double kPredictedRow = 1, kReplayedRow = 2, kRecordedRow = 3;

QColor stragglerColour() {
    // Purple: the flagged red would read as an error, and an orange beside exposed
    // communication's reads as more of it.
    return QColor(148, 103, 189);
}

} // namespace

QString scenarioText(const analysis::Scenario& s) {
    return QString("%1 MiB, %2, %3x bandwidth, %4 ranks")
        .arg(QString::number(s.capMb, 'g', 6), s.hook)
        .arg(QString::number(s.bandwidthX, 'g', 4))
        .arg(s.worldSize);
}

WhatIfFigure whatIfFigure(const analysis::WhatIf& w,
                          const std::optional<analysis::StepParts>& recorded,
                          std::size_t scenario) {
    WhatIfFigure f;
    f.recorded = recorded;
    f.replayed = analysis::predictedParts(w.replayed);
    if (scenario < w.scenarios.size()) {
        f.predicted = analysis::predictedParts(w.scenarios[scenario]);
        f.scenario = scenarioText(w.scenarios[scenario]);
    }
    return f;
}

void drawWhatIf(QCustomPlot& plot, const WhatIfFigure& f, const FigureStyle& style) {
    resetFigure(plot, "Step: recorded, replayed, what if", "ms per step", "", style);
    struct Row {
        double key;
        const analysis::StepParts* parts;
        const char* label;
    };
    std::vector<Row> rows;
    if (f.recorded) {
        rows.push_back({kRecordedRow, &*f.recorded, "recorded"});
    }
    rows.push_back({kReplayedRow, &f.replayed, "replayed"});
    rows.push_back({kPredictedRow, &f.predicted, "what if"});
    // Horizontal bars: the key axis is the left one.
    using Parts = analysis::StepParts;
    auto bars = [&](const QString& name, const QColor& colour, double Parts::*value) {
        QCPBars* b = addBars(plot.yAxis, plot.xAxis, name, colour);
        for (const Row& r : rows) {
            b->addData(r.key, (*r.parts).*value);
        }
        return b;
    };
    QCPBars* compute = bars("compute", computeColour(), &Parts::computeMs);
    QCPBars* exposed = bars("exposed comm.", communicationColour(), &Parts::exposedCommMs);
    QCPBars* wait = bars("straggler wait", stragglerColour(), &Parts::stragglerWaitMs);
    QCPBars* optimizer = bars("optimizer", bookkeepingColour(), &Parts::optimizerMs);
    exposed->moveAbove(compute);
    wait->moveAbove(exposed);
    optimizer->moveAbove(wait);
    if (!f.recorded || f.recorded->stragglerWaitMs <= 0) {
        plot.legend->removeItem(plot.legend->itemWithPlottable(wait));
    }

    // The model's uncertainty about its two bars' ends.
    auto* ends = new QCPGraph(plot.yAxis, plot.xAxis);
    ends->setName("uncertainty");
    ends->setLineStyle(QCPGraph::lsNone);
    ends->setScatterStyle(QCPScatterStyle::ssNone);
    auto* errors = new QCPErrorBars(plot.yAxis, plot.xAxis);
    errors->setName("uncertainty");
    errors->setErrorType(QCPErrorBars::etValueError);
    errors->setPen(QPen(Qt::black, 1.2));
    errors->setWhiskerWidth(8);
    errors->setSymbolGap(0); // the bar's end is no symbol to leave room for
    const auto totals = spec::mapped<QVector<double>>(
        rows, [](const Row& r) { return r.parts->stepMs() + r.parts->uncertaintyMs; });
    // The graph keeps its points sorted by key and the error bars go by that order, so each
    // error is set in the order of its row's key: the replayed row keeps the replay's own.
    static_assert(kPredictedRow < kReplayedRow);
    ends->addData(kPredictedRow, f.predicted.stepMs());
    ends->addData(kReplayedRow, f.replayed.stepMs());
    errors->setDataPlottable(ends);
    errors->setData(QVector<double>{f.predicted.uncertaintyMs, f.replayed.uncertaintyMs});
    plot.legend->removeItem(plot.legend->itemWithPlottable(ends));

    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (const Row& r : rows) {
        ticker->addTick(r.key, r.label);
    }
    plot.yAxis->setTicker(ticker);
    plot.yAxis->setRange(0.4, kRecordedRow + 0.6);
    plot.yAxis->grid()->setVisible(false);
    fitAxis(plot.xAxis, totals, true, false); // stacked bars need a linear axis from zero
    if (f.incomplete) {
        addNote(plot, "an incomplete job: a rank's trace is cut or missing", style);
    }
    if (!f.scenario.isEmpty()) {
        addNote(plot, "what if: " + f.scenario, style);
    }
}

} // namespace commprof::widgets
