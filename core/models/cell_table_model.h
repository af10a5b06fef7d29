#pragma once
// The expanded cells of a plan, with their feasibility: the designer's cell table.

#include "feasibility/plan.h"

#include <QAbstractTableModel>

namespace commprof::models {

class CellTableModel : public QAbstractTableModel {
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
    using QAbstractTableModel::QAbstractTableModel;
    void setPlan(const feasibility::Plan& plan);
    const feasibility::Plan& plan() const { return plan_; }
    // The cell closest to (or furthest past) its limit: what the bars show with no selection.
    int worstRow() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    feasibility::Plan plan_;
};

} // namespace commprof::models
