// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Results: linked plots (exposed communication vs world size, bucket time vs size with the
// fitted alpha-beta lines, the per-step breakdown, and where the results hold sweep cells their
// bus bandwidth against size) and the cell table, sortable and filterable.
// One selection is the single source of truth: picking a cell in any plot or the table marks it
// in all of them; typing in the filter never changes it. A study's repeats are drawn as each
// group's median and spread; "Each repeat" draws them one by one. Hovering a plot names the cell
// under the cursor. Incomplete and failed cells are flagged and never in a fit or an aggregate.

#include "report/report_data.h"

#include <QWidget>

class QCheckBox;
class QCustomPlot;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;
class QTabWidget;
class QScrollArea;
class QSplitter;
class QToolButton;

namespace commprof::models {
class CapTableModel;
class ResultsCellModel;
} // namespace commprof::models

namespace commprof::widgets {

class CapAdvicePanel;

class ResultsView : public QWidget {
    Q_OBJECT
public:
    // The figures shown, by name (see reportFigures()): the DDP ones side by side, and
    // sweep_bandwidth on a page of its own where the results hold a sweep cell.
    static const QStringList& shownFigures();

    explicit ResultsView(QWidget* parent = nullptr);
    void setData(const report::ReportData& data);
    const report::ReportData& data() const { return data_; }
    void selectCell(const QString& cellId);
    QString selectedCell() const { return selected_; }
    models::ResultsCellModel* model() const { return model_; }
    QSortFilterProxyModel* sortedModel() const { return proxy_; }
    QTableView* table() const { return table_; }
    QLineEdit* filter() const { return filter_; }
    QCustomPlot* plot(const char* figure) const;
    // The DDP figures' page, the sweep's and the cap study's (each shown when the results hold
    // what it draws).
    QTabWidget* figurePages() const { return figureTabs_; }
    // The cap study's numbers below its figure: a row per group and cap (models/cap_table_model.h).
    models::CapTableModel* tuningModel() const { return tuningModel_; }
    // Whether the figure is on the page shown (the DDP figures, or the sweep's).
    bool showsFigure(const char* figure) const;
    // What hovering at a plot position shows (also as the tooltip).
    QString toolTipAt(const char* figure, QPointF pos) const;

signals:
    void cellSelected(const QString& cellId);
    // "Apply to matrix" on the cap study: the recommended cap of a model, for the designer to
    // set in that model's entry.
    void applyCapRequested(const analysis::CapGroup& group);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void makeCellTable();
    QWidget* makeTuningPage(QCustomPlot* plot);
    void connectPlot(QCustomPlot* plot, const QByteArray& figure);
    void fitAdviceStrip();
    void snapAdviceStrip();
    void onSelectionChanged();
    // The filter shows and hides rows; the selection stays the cell it was (marked in the
    // figures even while its row is hidden, selected again when it shows).
    void applyFilter(const QString& text);
    void drawFigures();
    int pageOf(const char* figure) const;
    report::ReportData data_;
    models::ResultsCellModel* model_;
    QSortFilterProxyModel* proxy_;
    QLineEdit* filter_;
    QCheckBox* eachRepeat_;
    QTableView* table_;
    QString selected_;       // the selected cell, whatever the filter shows
    bool filtering_ = false; // the table's selection follows the filter, not the user
    QTabWidget* figureTabs_;
    QTableView* tuningTable_ = nullptr;
    models::CapTableModel* tuningModel_ = nullptr;
    CapAdvicePanel* capAdvice_ = nullptr;
    QScrollArea* adviceScroll_ = nullptr; // holds capAdvice_
    QSplitter* tuningSplit_ = nullptr;    // the lines, the figure and the numbers
    QToolButton* tableFold_ = nullptr;
    std::vector<std::pair<QByteArray, QCustomPlot*>> plots_;
};

} // namespace commprof::widgets
