#include "results_view.h"

#include "models/results_cell_model.h"
#include "result_plots.h"

#include <qcustomplot.h>

#include <QDir>
#include <QHeaderView>
#include <QPainter>
#include <QSplitter>
#include <QSvgGenerator>
#include <QTableView>
#include <QVBoxLayout>

#include <stdexcept>

namespace commprof::widgets {
namespace {

constexpr int kExportWidth = 1050;
constexpr int kExportHeight = 650;

} // namespace

ResultsView::ResultsView(QWidget* parent) : QWidget(parent) {
    model_ = new models::ResultsCellModel(this);
    table_ = new QTableView(this);
    table_->setModel(model_);
    table_->verticalHeader()->hide();
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->horizontalHeader()->setStretchLastSection(true);
    connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &ResultsView::onSelectionChanged);

    auto* plots = new QSplitter(Qt::Horizontal, this);
    for (const char* figure :
         {"overhead_vs_world_size", "bucket_time_vs_bytes", "time_breakdown"}) {
        auto* plot = new QCustomPlot(plots);
        plot->setMinimumSize(280, 220);
        plots->addWidget(plot);
        plots_.emplace_back(figure, plot);
        // A click in any plot selects the cell under it, which every view then marks.
        connect(plot, &QCustomPlot::mousePress, this, [this, plot, figure](QMouseEvent* e) {
            const QString id = cellAt(*plot, figure, data_, e->position());
            if (!id.isEmpty()) {
                selectCell(id);
            }
        });
    }
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(plots);
    split->addWidget(table_);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(split);
}

void ResultsView::setData(const report::ReportData& data) {
    data_ = data;
    model_->setCells(data.cells);
    table_->resizeColumnsToContents();
    for (auto& [figure, plot] : plots_) {
        for (const FigureSpec& spec : reportFigures()) {
            if (std::string(spec.name) == figure) {
                spec.draw(*plot, data_);
            }
        }
        plot->replot();
    }
}

QCustomPlot* ResultsView::plot(const char* figure) const {
    for (const auto& [name, plot] : plots_) {
        if (std::string(name) == figure) {
            return plot;
        }
    }
    return nullptr;
}

void ResultsView::selectCell(const QString& cellId) {
    const int row = model_->rowOf(cellId);
    if (row >= 0) {
        table_->selectRow(row);
    }
}

QString ResultsView::selectedCell() const {
    const QModelIndexList rows = table_->selectionModel()->selectedRows();
    return rows.isEmpty() ? QString() : model_->idAt(rows.first().row());
}

void ResultsView::onSelectionChanged() {
    const QString id = selectedCell();
    for (auto& [figure, plot] : plots_) {
        highlightCell(*plot, figure, data_, id);
    }
    emit cellSelected(id);
}

QStringList ResultsView::exportPlots(const QString& outDir) const {
    QDir().mkpath(outDir);
    QStringList written;
    for (const auto& [figure, plot] : plots_) {
        const QString base = QDir(outDir).filePath(figure);
        if (!plot->savePdf(base + ".pdf", kExportWidth, kExportHeight) ||
            !plot->savePng(base + ".png", kExportWidth, kExportHeight, 2.0)) {
            throw std::runtime_error(("cannot export " + base).toStdString());
        }
        QSvgGenerator svg;
        svg.setFileName(base + ".svg");
        svg.setSize(QSize(kExportWidth, kExportHeight));
        svg.setViewBox(QRect(0, 0, kExportWidth, kExportHeight));
        svg.setTitle(figure);
        QCPPainter painter;
        painter.begin(&svg);
        plot->toPainter(&painter, kExportWidth, kExportHeight);
        painter.end();
        written << base + ".pdf" << base + ".png" << base + ".svg";
    }
    return written;
}

} // namespace commprof::widgets
