#pragma once
// The expanded cells of a plan, with their feasibility: the designer's cell table.

#include "feasibility/plan.h"

#include "models/table_model.h"

namespace commprof::models {

class CellTableModel : public TableModel {
    Q_OBJECT
public:
    enum Column {
        Id,
        Layer,
        WorldSize,
        Feasible,
        Binding,
        HostGiB,
        DeviceGiB,
        Reason,
        ColumnCount
    };
    explicit CellTableModel(QObject* parent = nullptr);
    void setPlan(const feasibility::Plan& plan);
    const feasibility::Plan& plan() const { return plan_; }
    // The cell closest to (or furthest past) its limit: what the bars show with no selection.
    int worstRow() const;

    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

protected:
    int rows() const override;

private:
    feasibility::Plan plan_;
};

} // namespace commprof::models
