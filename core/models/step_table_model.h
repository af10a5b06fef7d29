// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Per-step trace figures as a table model: one row per step plus a totals row.

#include "trace/step_metrics.h"

#include "models/table_model.h"

namespace commprof::models {

class StepTableModel : public TableModel {
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

    explicit StepTableModel(QObject* parent = nullptr);
    void setSummary(const trace::TraceSummary& summary);
    const trace::TraceSummary& summary() const { return summary_; }

    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

protected:
    int rows() const override;

private:
    const trace::StepMetrics& rowMetrics(int row) const;
    trace::TraceSummary summary_;
};

} // namespace commprof::models
