// SPDX-License-Identifier: GPL-3.0-or-later
#include "results_view.h"

#include "cap_advice_panel.h"
#include "facets.h"
#include "flagged_row_delegate.h"
#include "layout_helpers.h"
#include "models/cap_table_model.h"
#include "models/results_cell_model.h"
#include "result_plots.h"

#include <qcustomplot.h>

#include <QApplication>
#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLineEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <set>

namespace commprof::widgets {
namespace {

constexpr const char* kSweepFigure = "sweep_bandwidth";
constexpr const char* kTuningFigure = "tuning";
constexpr int kLeastPlotPx = 150;
// The advice strip shows up to this many of its lines where the figure has room.
constexpr int kLeastAdviceLines = 3;

FigureStyle viewStyle(bool eachRepeat = false) {
    const double pt = QApplication::font().pointSizeF();
    return {.fontPt = pt > 0 ? pt : FigureStyle{}.fontPt, .eachRepeat = eachRepeat};
}

// The cell, its status and what was measured first, the settings after them, so that the
// measured numbers stay in view on a small screen.
void orderColumns(QHeaderView& header) {
    using M = models::ResultsCellModel;
    const int order[] = {M::Id,        M::Status, M::StepMs, M::CommMs, M::Overhead,
                         M::Agreement, M::Model,  M::Hook,   M::CapMb,  M::WorldSize,
                         M::Repeat,    M::Layer,  M::Kind,   M::Reasons};
    static_assert(std::size(order) == M::ColumnCount);
    for (int to = 0; to < int(std::size(order)); ++to) {
        header.moveSection(header.visualIndex(order[to]), to);
    }
}

// Shows `model` in `table` as rows to pick, in the model's own order until a click on a header
// sorts them by `sortRole`; returns the proxy that sorts them.
QSortFilterProxyModel* showSortable(QTableView& table, QAbstractItemModel* model, int sortRole) {
    auto* sorted = new QSortFilterProxyModel(model);
    sorted->setSourceModel(model);
    sorted->setSortRole(sortRole);
    table.setModel(sorted);
    makeRowTable(table);
    table.setSortingEnabled(true);
    table.sortByColumn(-1, Qt::AscendingOrder);
    table.setAlternatingRowColors(true);
    table.horizontalHeader()->setStretchLastSection(true);
    return sorted;
}

} // namespace

const QStringList& ResultsView::shownFigures() {
    static const QStringList figures{"overhead_vs_world_size", "bucket_time_vs_bytes",
                                     "time_breakdown", kSweepFigure, kTuningFigure};
    return figures;
}

ResultsView::ResultsView(QWidget* parent) : QWidget(parent) {
    makeCellTable();
    // The DDP figures side by side; the sweep's on a page of its own, as wide as the view: its
    // size axis spans twenty doublings and its legend a line per layer, world size and kind.
    figureTabs_ = new QTabWidget(this);
    figureTabs_->setDocumentMode(true);
    QSplitter* plots = makeSplitter(Qt::Horizontal, {}, figureTabs_);
    figureTabs_->addTab(plots, "DDP cells");
    for (const QString& name : shownFigures()) {
        auto* plot = new QCustomPlot(plots);
        plot->setMinimumSize(220, kLeastPlotPx);
        plot->setMouseTracking(true);
        plot->installEventFilter(this);
        if (name == kSweepFigure) {
            figureTabs_->addTab(plot, "Collective sweep");
        } else if (name == kTuningFigure) {
            figureTabs_->addTab(makeTuningPage(plot), "Bucket cap study");
        } else {
            // An equal share each: the bars' figure, left its least width, named a study's
            // bars one in four.
            plots->addWidget(plot);
            plots->setStretchFactor(plots->indexOf(plot), 1);
        }
        // Until results open, each figure says why it is empty instead of showing bare axes.
        plot->xAxis->setVisible(false);
        plot->yAxis->setVisible(false);
        sayWhenEmpty(*plot, "no data: no results folder is open (File > Open results, Ctrl+O)",
                     viewStyle());
        const QByteArray figure = name.toLatin1();
        plots_.emplace_back(figure, plot);
        connectPlot(plot, figure);
    }
    auto* tableBox = new QWidget(this);
    auto* tableLayout = bareLayout<QVBoxLayout>(tableBox, 2);
    auto* filterRow = new QHBoxLayout;
    filterRow->addWidget(filter_, 1);
    filterRow->addWidget(eachRepeat_);
    tableLayout->addLayout(filterRow);
    tableLayout->addWidget(table_, 1);
    QSplitter* split = makeSplitter(Qt::Vertical, {{figureTabs_, 3}, {tableBox, 2}}, this);
    split->setSizes({600, 400});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(split);
}

// The cells, sortable and filterable, with the choice of drawing each repeat.
void ResultsView::makeCellTable() {
    model_ = new models::ResultsCellModel(this);
    filter_ = new QLineEdit(this);
    filter_->setPlaceholderText("Filter cells (id, status, model, hook, layer, reason)");
    filter_->setClearButtonEnabled(true);
    connect(filter_, &QLineEdit::textChanged, this, &ResultsView::applyFilter);
    eachRepeat_ = new QCheckBox("Each repeat", this);
    eachRepeat_->setObjectName("eachRepeat");
    eachRepeat_->setToolTip("Draw every repeat of a cell on its own, instead of the median of "
                            "its repeats with whiskers from the lowest to the highest");
    connect(eachRepeat_, &QCheckBox::toggled, this, [this] {
        drawFigures();
        onSelectionChanged(); // the marks follow what is drawn
    });
    table_ = new QTableView(this);
    proxy_ = showSortable(*table_, model_, models::ResultsCellModel::SortRole);
    proxy_->setFilterKeyColumn(-1);
    proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setItemDelegate(new FlaggedRowDelegate(models::ResultsCellModel::FlaggedRole, table_));
    orderColumns(*table_->horizontalHeader());
    connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &ResultsView::onSelectionChanged);
}

// The bucket cap study's page: the advice, the figure, and the numbers per cap.
QWidget* ResultsView::makeTuningPage(QCustomPlot* plot) {
    // The figure above the numbers it draws: predicted, held out and measured per cap,
    // a row each, sortable.
    tuningModel_ = new models::CapTableModel(this);
    tuningTable_ = new QTableView;
    tuningTable_->setObjectName("tuningTable");
    showSortable(*tuningTable_, tuningModel_, models::CapTableModel::SortRole);
    capAdvice_ = new CapAdvicePanel;
    connect(capAdvice_, &CapAdvicePanel::applyCapRequested, this, &ResultsView::applyCapRequested);
    // What to do at the top; the numbers it rests on below, folded until asked for.
    tableFold_ = makeFold("Numbers per cap (predicted, held out, measured)", tuningTable_, this);
    tableFold_->setObjectName("tuningTableFold");
    auto* page = new QWidget;
    auto* v = bareLayout<QVBoxLayout>(page, 0);
    // A study of many groups scrolls its lines rather than squeeze the figure; the
    // splitter lets the user give them more room.
    auto* adviceScroll = adviceScroll_ = new QScrollArea;
    adviceScroll->setObjectName("capAdviceScroll");
    adviceScroll->setWidget(capAdvice_);
    adviceScroll->setWidgetResizable(true);
    adviceScroll->setFrameShape(QFrame::NoFrame);
    adviceScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    tuningSplit_ =
        makeSplitter(Qt::Vertical, {{adviceScroll, 2}, {plot, 3}, {tuningTable_, 2}}, page);
    tuningSplit_->installEventFilter(this); // the strip's height follows the page's
    connect(tuningSplit_, &QSplitter::splitterMoved, this, &ResultsView::snapAdviceStrip);
    v->addWidget(tuningSplit_, 1);
    v->addWidget(tableFold_);
    return page;
}

// A click in a plot selects the cell under it, which every view then marks; hovering says what
// is under the pointer.
void ResultsView::connectPlot(QCustomPlot* plot, const QByteArray& figure) {
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

bool ResultsView::eventFilter(QObject* watched, QEvent* event) {
    if (watched == tuningSplit_ && event->type() == QEvent::Resize) {
        fitAdviceStrip();
    }
    if (event->type() == QEvent::Resize) {
        for (auto& [figure, plot] : plots_) {
            if (plot == watched) {
                // After the resize is laid out: where the legend fits depends on the new size.
                QTimer::singleShot(0, plot, [this, plot, figure = figure] {
                    placeLegend(*plot);
                    if (figure == kTuningFigure) {
                        fitAdviceStrip(); // its least height counts its rows of panels
                    }
                });
            }
        }
    }
    return QWidget::eventFilter(watched, event);
}

// The least heights of the page's panes: the strip's is its first lines (the most actionable),
// the figure's its rows of panels at kFacetMinPx each and what it draws around them, as last laid
// out. The page's splitter gets its sizes from the workspace's defaults and from the saved layout,
// both after the data, and neither can shrink a pane below its least height.
void ResultsView::fitAdviceStrip() {
    QCustomPlot* figure = plot(kTuningFigure);
    if (!adviceScroll_ || !tuningSplit_ || !figure) {
        return;
    }
    std::set<int> rows;
    for (const QCPAxisRect* r : figure->axisRects()) {
        rows.insert(r->top());
    }
    const int around = plotAreaHeight(*figure) > 0 ? figure->height() - plotAreaHeight(*figure)
                                                   : 6 * figure->fontMetrics().height();
    // The figure's need: its panels at kFacetMinPx each, and a plot area no smaller than what is
    // drawn around it (titles, legend, axes), below which it cannot be read.
    const int need = std::max(around + int(rows.size()) * kFacetMinPx, 2 * around);
    const int split = tuningSplit_->height() - tuningSplit_->handleWidth();
    // The strip's first lines, as many as the figure leaves room for, from one to
    // kLeastAdviceLines.
    const int strip = capAdvice_->rows() > 0
                          ? std::clamp(split - need, capAdvice_->firstRowsHeight(1),
                                       capAdvice_->firstRowsHeight(kLeastAdviceLines))
                          : 2 * adviceScroll_->fontMetrics().height();
    adviceScroll_->setMinimumHeight(strip);
    figure->setMinimumHeight(std::clamp(need, kLeastPlotPx, std::max(kLeastPlotPx, split - strip)));
    // After the splitter and the strip's rows are laid out at the new size.
    QTimer::singleShot(0, this, &ResultsView::snapAdviceStrip);
}

// A strip that scrolls ends under a whole line, never across one: what a row does not fill goes
// to the figure below it.
void ResultsView::snapAdviceStrip() {
    const int shown = adviceScroll_->viewport()->height();
    if (capAdvice_->height() <= shown) {
        return;
    }
    // Scrolled down, the lines end below the panel's top by as much.
    const int scrolled = adviceScroll_->verticalScrollBar()->value();
    const int whole = capAdvice_->wholeRowsHeight(shown + scrolled) - scrolled;
    QList<int> sizes = tuningSplit_->sizes();
    if (whole > 0 && whole < shown && sizes.size() == 3) {
        sizes[1] += sizes[0] - whole;
        sizes[0] = whole;
        tuningSplit_->setSizes(sizes);
    }
}

void ResultsView::setData(const report::ReportData& data) {
    const QString keep = selectedCell();
    data_ = data;
    model_->setCells(data.cells, report::cellNotes(data));
    // The axis columns a study varies; one that holds a single value says nothing.
    for (const int column : {models::ResultsCellModel::Model, models::ResultsCellModel::Hook,
                             models::ResultsCellModel::CapMb, models::ResultsCellModel::Repeat,
                             models::ResultsCellModel::Layer}) {
        table_->setColumnHidden(column, !model_->varies(column));
    }
    table_->resizeColumnsToContents();
    const bool anySweep = std::any_of(data.cells.begin(), data.cells.end(),
                                      [](const store::CellRow& c) { return c.isSweep(); });
    // Results without a sweep cell give the sweep page nothing to show: no tabs then (an
    // exported sweep figure says so in words).
    figureTabs_->setTabVisible(pageOf(kSweepFigure), anySweep);
    const bool tuning = figureNamed(kTuningFigure)->appliesTo(data);
    figureTabs_->setTabVisible(pageOf(kTuningFigure), tuning);
    tuningModel_->setGroups(data.tuning ? data.tuning->groups : std::vector<analysis::CapGroup>{});
    tuningTable_->resizeColumnsToContents();
    capAdvice_->setGroups(data.tuning ? data.tuning->groups : std::vector<analysis::CapGroup>{});
    fitAdviceStrip();
    figureTabs_->tabBar()->setVisible(anySweep || tuning);
    if (!figureTabs_->isTabVisible(figureTabs_->currentIndex())) {
        figureTabs_->setCurrentIndex(0);
    }
    drawFigures();
    selected_.clear();
    selectCell(keep);
}

void ResultsView::drawFigures() {
    for (auto& [figure, plot] : plots_) {
        if (const FigureSpec* spec = figureNamed(QString::fromLatin1(figure))) {
            spec->draw(*plot, data_, viewStyle(eachRepeat_->isChecked()));
        }
        placeLegend(*plot);
    }
}

void ResultsView::applyFilter(const QString& text) {
    filtering_ = true;
    proxy_->setFilterFixedString(text);
    const int row = model_->rowOf(selected_);
    const QModelIndex at = row >= 0 ? proxy_->mapFromSource(model_->index(row, 0)) : QModelIndex();
    if (at.isValid()) {
        table_->selectRow(at.row());
        table_->scrollTo(at);
    } else {
        table_->clearSelection();
    }
    filtering_ = false;
}

QCustomPlot* ResultsView::plot(const char* figure) const {
    const auto it = std::ranges::find_if(plots_, [&](const auto& p) { return p.first == figure; });
    return it == plots_.end() ? nullptr : it->second;
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

bool ResultsView::showsFigure(const char* figure) const {
    const int page = pageOf(figure);
    return plot(figure) && figureTabs_->isTabVisible(page) && figureTabs_->currentIndex() == page;
}

void ResultsView::onSelectionChanged() {
    if (filtering_) {
        return; // rows shown or hidden, not a cell picked
    }
    if (sender() == table_->selectionModel()) {
        const QModelIndexList rows = table_->selectionModel()->selectedRows();
        selected_ =
            rows.isEmpty() ? QString() : model_->idAt(proxy_->mapToSource(rows.first()).row());
    }
    const QString id = selected_;
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
