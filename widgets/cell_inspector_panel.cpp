#include "cell_inspector_panel.h"

#include "analysis/cell_metrics.h"

#include <qcustomplot.h>

#include <QLabel>
#include <QVBoxLayout>

namespace commprof::widgets {

CellInspectorPanel::CellInspectorPanel(QWidget* parent) : QWidget(parent) {
    agreement_ = new QLabel("Select a cell in Results", this);
    agreement_->setWordWrap(true);
    plot_ = new QCustomPlot(this);
    plot_->xAxis->setLabel("bucket (recorded order)");
    plot_->yAxis->setLabel("all-reduce (ms)");
    plot_->setMinimumWidth(260);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(agreement_);
    layout->addWidget(plot_, 1);
}

void CellInspectorPanel::showCell(const report::ReportData& data, const QString& cellId) {
    plot_->clearGraphs();
    const store::CellRow* cell = nullptr;
    for (const auto& c : data.cells) {
        if (c.id == cellId) {
            cell = &c;
        }
    }
    if (!cell) {
        agreement_->setText("Select a cell in Results");
        plot_->replot();
        return;
    }
    if (!cell->complete()) {
        agreement_->setText(
            QString("<b>%1</b> is %2: %3")
                .arg(cell->id, cell->status, cell->reasons.join("; ").toHtmlEscaped()));
        plot_->replot();
        return;
    }
    QCPGraph* g = plot_->addGraph();
    g->setLineStyle(QCPGraph::lsNone);
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(255, 127, 14), 5));
    double i = 0;
    for (const auto& s : data.bucketsByCell.value(cellId)) {
        g->addData(i++, s.seconds * 1e3);
    }
    plot_->rescaleAxes();
    plot_->yAxis->setRangeLower(0);
    plot_->replot();
    const auto ms = [](const std::optional<double>& v) {
        return v ? QString::number(*v, 'f', 2) + " ms" : QString("n/a");
    };
    QString verdict = "n/a";
    if (cell->hookTraceAgreement) {
        verdict =
            QString("%1 (%2)")
                .arg(*cell->hookTraceAgreement, 0, 'f', 3)
                .arg(cell->agreementFlagged
                         ? QString("DISAGREE beyond ±%1 %").arg(analysis::kAgreementTolerance * 100)
                         : QString("within ±%1 %").arg(analysis::kAgreementTolerance * 100));
    }
    agreement_->setText(
        QString("<b>%1</b><br>comm hook: %2 per step<br>trace: %3 per step<br>trace / hook: %4")
            .arg(cell->id, ms(cell->hookCommMs), ms(cell->traceCommMs), verdict));
}

QString CellInspectorPanel::agreementText() const {
    return agreement_->text();
}

} // namespace commprof::widgets
