#pragma once
// Per-step trace figures as a table model: one row per step plus a totals row.

#include "trace/step_metrics.h"

#include <QAbstractTableModel>

namespace commprof::models {

class StepTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Step,
        StepUs,
        ComputeUs,
        CommUs,
        BookkeepingUs,
        OverlapUs,
        ExposedUs,
        Efficiency,
        ColumnCount
    };

    using QAbstractTableModel::QAbstractTableModel;
    void setSummary(const trace::TraceSummary& summary);
    const trace::TraceSummary& summary() const { return summary_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    const trace::StepMetrics& rowMetrics(int row) const;
    trace::TraceSummary summary_;
};

} // namespace commprof::models
