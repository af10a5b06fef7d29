// SPDX-License-Identifier: GPL-3.0-or-later
#include "cell_inspector_panel.h"

#include "flagged_row_delegate.h"
#include "layout_helpers.h"
#include "models/cell_figures_model.h"
#include "plot_style.h"
#include "report/series_names.h"
#include "result_plots.h"
#include "results/model_layout.h"
#include "results/results_folder.h"
#include "spec/mapped.h"

#include <qcustomplot.h>

#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace commprof::widgets {

CellInspectorPanel::CellInspectorPanel(QWidget* parent) : QWidget(parent) {
    headline_ = new QLabel("Select a cell in Results", this);
    headline_->setObjectName("headline");
    headline_->setWordWrap(true);
    headline_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // What was trained and its buckets; empty when not known, or not yet read off the GUI thread.
    model_ = new QLabel(this);
    model_->setObjectName("model");
    model_->setWordWrap(true);
    model_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    model_->hide();
    figures_ = new models::CellFiguresModel(this);
    table_ = new QTableView(this);
    table_->setModel(figures_);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->hide();
    table_->setWordWrap(true);
    table_->setTextElideMode(Qt::ElideRight);
    table_->setShowGrid(false);
    table_->setAlternatingRowColors(true);
    table_->setSelectionMode(QAbstractItemView::NoSelection);
    table_->setItemDelegate(new FlaggedRowDelegate(models::CellFiguresModel::FlaggedRole, table_));
    // Labels and values share the width and wrap, so a narrow dock still shows every figure.
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    table_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    table_->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    plot_ = new QCustomPlot(this);
    plot_->setMinimumSize(200, 140);
    resetFigure(*plot_, "Bucket times (comm hook)", "bucket (recorded order)", "all-reduce (ms)",
                FigureStyle{font().pointSizeF()});
    plot_->legend->setVisible(false);
    QSplitter* split = makeSplitter(Qt::Vertical, {{table_, 1}, {plot_, 1}}, this);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(headline_);
    layout->addWidget(model_);
    layout->addWidget(split, 1);
}

void CellInspectorPanel::showCell(const report::ReportData& data, const QString& cellId) {
    const store::CellRow* cell = findCell(data, cellId);
    const auto ranks = data.ranksByCell.find(cellId);
    const auto prediction = data.predictionsByCell.find(cellId);
    const auto sweeps = data.sweepsByCell.find(cellId);
    figures_->setCell(cell, ranks == data.ranksByCell.end() ? nullptr : &ranks.value(),
                      prediction == data.predictionsByCell.end() ? nullptr : &prediction.value(),
                      sweeps == data.sweepsByCell.end() ? nullptr : &sweeps.value());
    plot_->clearGraphs();
    plot_->clearItems();
    showModel(cell);
    if (!cell) {
        headline_->setText("Select a cell in Results");
        plot_->replot();
        return;
    }
    headline_->setText(QString("<b>%1</b> &nbsp; %2 · %3")
                           .arg(cell->id.toHtmlEscaped(), cell->layer.toHtmlEscaped(),
                                report::ranksText(cell->worldSize)));
    const auto& samples = data.bucketsByCell.value(cellId);
    QVector<double> times;
    if (!samples.empty()) {
        QCPGraph* g = plot_->addGraph();
        g->setLineStyle(QCPGraph::lsNone);
        const QColor colour = layerColour(cell->layer);
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, colour, colour, 5));
        double i = 0;
        for (const auto& s : samples) {
            g->addData(i++, s.seconds * 1e3);
            times << s.seconds * 1e3;
        }
        plot_->xAxis->setRange(-1, i);
    } else {
        // Never a silently empty plot: say why there is nothing to draw.
        auto* why = new QCPItemText(plot_);
        why->position->setType(QCPItemPosition::ptAxisRectRatio);
        why->position->setCoords(0.5, 0.5);
        why->setText(cell->isSweep() ? "A sweep cell has no buckets:\nits bandwidth is in Results, "
                                       "Collective sweep"
                                     : "No bucket timings recorded for this cell");
    }
    countTicks(plot_->xAxis);
    fitAxis(plot_->yAxis, times, true);
    plot_->replot();
}

void CellInspectorPanel::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    table_->setColumnHidden(models::CellFiguresModel::Note, width() < kNotesFromWidth);
}

void CellInspectorPanel::showModel(const store::CellRow* cell) {
    // From the rank 0 file of a cell that ran, read off the GUI thread (a long run's file holds
    // every recorded bucket); a newer selection makes an older read stale.
    model_->hide();
    model_->clear();
    model_->setToolTip({});
    if (!cell || cell->isSweep()) {
        modelReads_->cancel();
        return;
    }
    const QString dir = results::cellDir(cell->runDir, cell->id);
    modelReads_->start(
        "Reading " + cell->id,
        [dir](const jobs::JobContext&) { return results::readModelLayout(dir); },
        [this](const std::optional<results::ModelLayout>& m) {
            if (m) {
                showLayout(*m);
            }
        });
}

void CellInspectorPanel::showLayout(const results::ModelLayout& m) {
    const QString what = m.torchscript.isEmpty()
                             ? m.family
                             : QString("TorchScript %1%2")
                                   .arg(QFileInfo(m.torchscript).fileName(),
                                        m.input.isEmpty() ? QString() : ", input " + m.input);
    const QString frozen =
        m.frozen > 0 ? QString("%1M frozen").arg(m.frozen / 1e6, 0, 'g', 4) : "none frozen";
    model_->setText(QString("<b>%1</b> (%2): %3M parameters, %4, %5 tensors reduced<br>"
                            "buckets: first %6; rebuilt %7")
                        .arg(m.name.toHtmlEscaped(), what.toHtmlEscaped())
                        .arg(m.params / 1e6, 0, 'g', 3)
                        .arg(frozen)
                        .arg(m.trainableTensors)
                        .arg(results::bucketsText(m.initialBucketBytes),
                             results::bucketsText(m.finalBucketBytes)));
    const auto sizes = spec::mapped<QStringList>(
        m.finalBucketBytes, [](double b) { return QString::number(b / 1048576.0, 'f', 2); });
    const QString rebuilt = "Rebuilt buckets (MiB, as the Reducer held them): " + sizes.join(", ");
    model_->setToolTip(m.torchscript.isEmpty() ? rebuilt : m.torchscript + "\n" + rebuilt);
    model_->show();
}

} // namespace commprof::widgets
