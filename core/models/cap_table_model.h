// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The numbers of a bucket-cap study as a table, for the Bucket cap study page: a row per group of
// `commprof recommend` and candidate cap (predicted, held out and measured step, the error), the
// fastest and the recommended cap marked; a group that predicts nothing is one row with its
// reason. The same numbers as `recommend`'s text, without its lines that a page cannot fit.

#include "analysis/recommendation.h"

#include "models/table_model.h"

#include <vector>

namespace commprof::models {

class CapTableModel : public TableModel {
    Q_OBJECT
public:
    enum Column {
        Group,
        CapMb,
        Buckets,
        PredictedStepMs,
        PredictedExposedMs,
        HeldOutStepMs,
        MeasuredStepMs,
        Error,
        Note // fastest, recommended, or why the group predicts nothing
    };
    enum Role { SortRole = Qt::UserRole + 1 }; // numbers as numbers, a missing one first

    explicit CapTableModel(QObject* parent = nullptr);
    void setGroups(const std::vector<analysis::CapGroup>& groups);

protected:
    int rows() const override { return int(rows_.size()); }
    QVariant cellData(const QModelIndex& index, int role) const override;

private:
    struct Row {
        const analysis::CapGroup* group = nullptr;
        const analysis::CapCandidate* candidate = nullptr; // none: the group's reason
    };
    std::vector<analysis::CapGroup> groups_;
    std::vector<Row> rows_;
};

} // namespace commprof::models
