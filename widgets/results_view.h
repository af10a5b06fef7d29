#pragma once
// Results: linked plots (overhead vs world size, bucket time vs bytes with the fitted
// alpha-beta lines, stacked breakdown) and the cell table. One selection model is the single
// source of truth: picking a cell in any plot or the table marks it in all of them.
// Incomplete and failed cells are flagged and never in a fit or an aggregate.

#include "report/report_data.h"

#include <QWidget>

class QCustomPlot;
class QTableView;

namespace commprof::models {
class ResultsCellModel;
}

namespace commprof::widgets {

class ResultsView : public QWidget {
    Q_OBJECT
public:
    explicit ResultsView(QWidget* parent = nullptr);
    void setData(const report::ReportData& data);
    void selectCell(const QString& cellId);
    QString selectedCell() const;
    models::ResultsCellModel* model() const { return model_; }
    QCustomPlot* plot(const char* figure) const;
    // Every plot as PDF, PNG and SVG at publication size. Returns the files written.
    QStringList exportPlots(const QString& outDir) const;

signals:
    void cellSelected(const QString& cellId);

private:
    void onSelectionChanged();
    report::ReportData data_;
    models::ResultsCellModel* model_;
    QTableView* table_;
    std::vector<std::pair<const char*, QCustomPlot*>> plots_;
};

} // namespace commprof::widgets
