// SPDX-License-Identifier: GPL-3.0-or-later
#include "results_view.h"

#include "cap_advice_panel.h"
#include "flagged_row_delegate.h"
#include "layout_helpers.h"
#include "models/results_cell_model.h"
#include "result_plots.h"

#include <qcustomplot.h>

#include <QApplication>
#include <QFontDatabase>
#include <QHeaderView>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>

namespace commprof::widgets {
namespace {

constexpr const char* kSweepFigure = "sweep_bandwidth";
constexpr const char* kTuningFigure = "tuning";

FigureStyle viewStyle() {
    FigureStyle style;
    style.fontPt =
        QApplication::font().pointSizeF() > 0 ? QApplication::font().pointSizeF() : style.fontPt;
    return style;
}

} // namespace

const QStringList& ResultsView::shownFigures() {
    static const QStringList figures{"overhead_vs_world_size", "bucket_time_vs_bytes",
                                     "time_breakdown", kSweepFigure, kTuningFigure};
    return figures;
}

ResultsView::ResultsView(QWidget* parent) : QWidget(parent) {
    model_ = new models::ResultsCellModel(this);
    proxy_ = new QSortFilterProxyModel(this);
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(models::ResultsCellModel::SortRole);
    proxy_->setFilterKeyColumn(-1);
    proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
    filter_ = new QLineEdit(this);
    filter_->setPlaceholderText("Filter cells (id, status, layer, reason)");
    filter_->setClearButtonEnabled(true);
    connect(filter_, &QLineEdit::textChanged, proxy_, &QSortFilterProxyModel::setFilterFixedString);
    table_ = new QTableView(this);
    table_->setModel(proxy_);
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setSortingEnabled(true);
    table_->sortByColumn(-1, Qt::AscendingOrder); // the results' own order until a click
    table_->setAlternatingRowColors(true);
    table_->setItemDelegate(new FlaggedRowDelegate(models::ResultsCellModel::FlaggedRole, table_));
    table_->setTextElideMode(Qt::ElideMiddle);
    table_->horizontalHeader()->setStretchLastSection(true);
    connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &ResultsView::onSelectionChanged);

    // The DDP figures side by side; the sweep's on a page of its own, as wide as the view: its
    // size axis spans twenty doublings and its legend a line per layer, world size and kind.
    figureTabs_ = new QTabWidget(this);
    figureTabs_->setDocumentMode(true);
    QSplitter* plots = makeSplitter(Qt::Horizontal, {}, figureTabs_);
    figureTabs_->addTab(plots, "DDP cells");
    for (const QString& name : shownFigures()) {
        auto* plot = new QCustomPlot(plots);
        plot->setMinimumSize(220, 150);
        plot->setMouseTracking(true);
        plot->installEventFilter(this);
        if (name == kSweepFigure) {
            figureTabs_->addTab(plot, "Collective sweep");
        } else if (name == kTuningFigure) {
            // The figure beside the numbers it draws: predicted, held out and measured per cap.
            tuningText_ = new QPlainTextEdit;
            tuningText_->setReadOnly(true);
            tuningText_->setLineWrapMode(QPlainTextEdit::NoWrap);
            tuningText_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
            tuningText_->setObjectName("tuningTable");
            capAdvice_ = new CapAdvicePanel;
            connect(capAdvice_, &CapAdvicePanel::applyCapRequested, this,
                    &ResultsView::applyCapRequested);
            // What to do at the top; the numbers it rests on below, folded until asked for.
            tableFold_ =
                makeFold("Numbers per cap (predicted, held out, measured)", tuningText_, this);
            tableFold_->setObjectName("tuningTableFold");
            auto* page = new QWidget;
            auto* v = new QVBoxLayout(page);
            v->setContentsMargins(0, 0, 0, 0);
            v->setSpacing(0);
            // A study of many groups scrolls its lines rather than squeeze the figure: at
            // 1366x768 six groups' lines took the figure down to 80 px.
            auto* adviceScroll = adviceScroll_ = new QScrollArea;
            adviceScroll->setObjectName("capAdviceScroll");
            adviceScroll->setWidget(capAdvice_);
            adviceScroll->setWidgetResizable(true);
            adviceScroll->setFrameShape(QFrame::NoFrame);
            adviceScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
            v->addWidget(adviceScroll);
            v->addWidget(makeSplitter(Qt::Vertical, {{plot, 3}, {tuningText_, 2}}, page), 1);
            v->addWidget(tableFold_);
            figureTabs_->addTab(page, "Bucket cap study");
        } else {
            plots->addWidget(plot);
        }
        // Until results open, each figure says why it is empty instead of showing bare axes.
        plot->xAxis->setVisible(false);
        plot->yAxis->setVisible(false);
        sayWhenEmpty(*plot, "no data: no results folder is open (File > Open results, Ctrl+O)",
                     viewStyle());
        const QByteArray figure = name.toLatin1();
        plots_.emplace_back(figure, plot);
        // A click in any plot selects the cell under it, which every view then marks.
        connect(plot, &QCustomPlot::mousePress, this, [this, plot, figure](QMouseEvent* e) {
            const QString id = cellAt(*plot, figure.constData(), data_, e->position());
            if (!id.isEmpty()) {
                selectCell(id);
            }
        });
        connect(plot, &QCustomPlot::mouseMove, this, [this, plot, figure](QMouseEvent* e) {
            const QString tip = toolTipAt(figure.constData(), e->position());
            if (tip.isEmpty()) {
                QToolTip::hideText();
            } else {
                QToolTip::showText(plot->mapToGlobal(e->position().toPoint()), tip, plot);
            }
        });
    }
    QSplitter* split = makeSplitter(
        Qt::Vertical, {{figureTabs_, 3}, {filteredTable(filter_, table_, this), 2}}, this);
    split->setSizes({600, 400});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(split);
}

bool ResultsView::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::Resize) {
        for (auto& [figure, plot] : plots_) {
            if (plot == watched) {
                // After the resize is laid out: where the legend fits depends on the new size.
                QTimer::singleShot(0, plot, [plot] { placeLegend(*plot); });
            }
        }
    }
    return QWidget::eventFilter(watched, event);
}

void ResultsView::setData(const report::ReportData& data) {
    const QString keep = selectedCell();
    data_ = data;
    model_->setCells(data.cells, report::cellNotes(data));
    table_->resizeColumnsToContents();
    const bool anySweep = std::any_of(data.cells.begin(), data.cells.end(),
                                      [](const store::CellRow& c) { return c.isSweep(); });
    // Results without a sweep cell give the sweep page nothing to show: no tabs then (an
    // exported sweep figure says so in words).
    figureTabs_->setTabVisible(pageOf(kSweepFigure), anySweep);
    const bool tuning = figureNamed(kTuningFigure)->appliesTo(data);
    figureTabs_->setTabVisible(pageOf(kTuningFigure), tuning);
    QStringList groups;
    if (data.tuning) {
        for (const analysis::CapGroup& g : data.tuning->groups) {
            groups << analysis::describe(g);
        }
    }
    tuningText_->setPlainText(groups.join('\n'));
    capAdvice_->setGroups(data.tuning ? data.tuning->groups : std::vector<analysis::CapGroup>{});
    if (QScrollArea* scroll = adviceScroll_) {
        // As tall as its lines, up to a sixth of the window (twelve text lines before it is
        // shown); beyond that it scrolls, so the figure keeps its height on a small screen.
        const int lines = 12 * scroll->fontMetrics().height();
        const int most = window()->height() > 0 ? std::min(lines, window()->height() / 6) : lines;
        scroll->setFixedHeight(std::min(capAdvice_->sizeHint().height(), most));
    }
    figureTabs_->tabBar()->setVisible(anySweep || tuning);
    if (!figureTabs_->isTabVisible(figureTabs_->currentIndex())) {
        figureTabs_->setCurrentIndex(0);
    }
    for (auto& [figure, plot] : plots_) {
        if (const FigureSpec* spec = figureNamed(QString::fromLatin1(figure))) {
            spec->draw(*plot, data_, viewStyle());
        }
        placeLegend(*plot);
    }
    selectCell(keep);
}

QCustomPlot* ResultsView::plot(const char* figure) const {
    for (const auto& [name, plot] : plots_) {
        if (name == figure) {
            return plot;
        }
    }
    return nullptr;
}

// The tab a figure is on: its own page, the page that holds it beside other widgets, or the
// DDP figures' page (0).
int ResultsView::pageOf(const char* figure) const {
    for (QWidget* w = plot(figure); w; w = w->parentWidget()) {
        if (const int page = figureTabs_->indexOf(w); page >= 0) {
            return page;
        }
    }
    return 0;
}

QString ResultsView::toolTipAt(const char* figure, QPointF pos) const {
    const QCustomPlot* p = plot(figure);
    return p ? widgets::toolTipAt(*p, figure, data_, pos) : QString();
}

void ResultsView::selectCell(const QString& cellId) {
    const int row = model_->rowOf(cellId);
    if (row < 0) {
        return;
    }
    QModelIndex at = proxy_->mapFromSource(model_->index(row, 0));
    if (!at.isValid()) {
        filter_->clear(); // the cell was filtered out: show it rather than select nothing
        at = proxy_->mapFromSource(model_->index(row, 0));
    }
    table_->selectRow(at.row());
    table_->scrollTo(at);
}

QString ResultsView::selectedCell() const {
    const QModelIndexList rows = table_->selectionModel()->selectedRows();
    return rows.isEmpty() ? QString() : model_->idAt(proxy_->mapToSource(rows.first()).row());
}

bool ResultsView::showsFigure(const char* figure) const {
    const int page = pageOf(figure);
    return plot(figure) && figureTabs_->isTabVisible(page) && figureTabs_->currentIndex() == page;
}

void ResultsView::onSelectionChanged() {
    const QString id = selectedCell();
    // The figures that draw the cell come to the front: a sweep's page for a sweep cell.
    if (const store::CellRow* c = findCell(data_, id)) {
        const int sweepPage = pageOf(kSweepFigure);
        const int tuningPage = pageOf(kTuningFigure);
        if (c->isSweep() && figureTabs_->isTabVisible(sweepPage)) {
            figureTabs_->setCurrentIndex(sweepPage);
        } else if (!c->isSweep() && figureTabs_->currentIndex() != tuningPage) {
            figureTabs_->setCurrentIndex(0); // the cap study keeps its page: it draws the cell
        }
    }
    for (auto& [figure, plot] : plots_) {
        highlightCell(*plot, figure.constData(), data_, id);
    }
    emit cellSelected(id);
}

} // namespace commprof::widgets
