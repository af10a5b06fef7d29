// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Per-step trace figures as a table model: one row per step plus a totals row.

#include "trace/step_metrics.h"

#include "models/table_model.h"

namespace commprof::models {

// A step's figures, or the totals' (step "total").
struct StepTableRow {
    QVariant step;
    trace::StepMetrics metrics;
};

class StepTableModel : public RowTableModel<StepTableRow> {
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
        Efficiency
    };

    explicit StepTableModel(QObject* parent = nullptr);
    void setSummary(const trace::TraceSummary& summary);

protected:
    QVariant rowData(const StepTableRow& row, int column, int role) const override;
};

} // namespace commprof::models
