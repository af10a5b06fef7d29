// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The expanded cells of a plan, with their feasibility: the designer's cell table. A matrix can
// expand to 100k cells, so the table is lazy: it shows rows in chunks as the view scrolls
// (canFetchMore / fetchMore), sorts and filters an index over the plan rather than the cells,
// and never copies the plan (it shares the designer's).

#include "feasibility/plan.h"

#include "models/table_model.h"

#include <memory>

namespace commprof::models {

class CellTableModel : public TableModel {
    Q_OBJECT
public:
    enum Column {
        Id,
        Varies, // the cell's value of each axis that varies, but the layer and world size
        Layer,
        WorldSize,
        Feasible,
        Binding,
        HostGiB,
        DeviceGiB,
        Reason,
        Nodes, // under Slurm: each node's share of the cell
        ColumnCount
    };
    enum Role { InfeasibleRole = Qt::UserRole + 1, PlanIndexRole };
    static constexpr int kChunk = 256;

    explicit CellTableModel(QObject* parent = nullptr);
    // Takes a plan and, when the caller has it already (computed off the GUI thread), the
    // order its rows are shown in for the current filter and sort.
    void setPlan(std::shared_ptr<const feasibility::Plan> plan,
                 std::optional<std::vector<int>> order = std::nullopt);
    const feasibility::Plan& plan() const { return *plan_; }
    std::shared_ptr<const feasibility::Plan> sharedPlan() const { return plan_; }

    // The axes (matrix/axes.h keys) that take more than one value among the plan's cells, less
    // those with a column of their own (layer, world size). Pure.
    static QStringList varyingAxes(const feasibility::Plan& plan);
    // "model=mlp2m bucket_cap_mb=0.25 hook=allreduce": what tells a cell apart, where its id
    // would be cut.
    static QString variesText(const matrix::Cell& cell, const QStringList& varying);
    const QStringList& varying() const { return varying_; } // of the plan shown

    // Rows shown for a filter (case-insensitive substring of the id or the layer) and a sort:
    // indices into plan.cells. Pure: callable from any thread.
    static std::vector<int> order(const feasibility::Plan& plan, const QString& filter,
                                  int sortColumn, Qt::SortOrder sortOrder);
    // The plan cell closest to (or furthest past) its limit: what the bars show with no
    // selection; -1 for an empty plan. Pure.
    static int worstCell(const feasibility::Plan& plan);

    void setFilter(const QString& text);
    QString filter() const { return filter_; }
    int sortColumn() const { return sortColumn_; }
    Qt::SortOrder sortOrder() const { return sortOrder_; }
    int totalRows() const { return int(order_.size()); } // rows after the filter, loaded or not

    // Plan index of a table row, or -1; table row of a plan cell id (loading rows up to it), or
    // -1 when filtered out.
    int planIndexAt(int row) const;
    int rowOfCell(const QString& cellId);

    bool canFetchMore(const QModelIndex& parent) const override;
    void fetchMore(const QModelIndex& parent) override;
    void sort(int column, Qt::SortOrder order) override;

protected:
    int rows() const override { return loaded_; }
    QVariant cellData(const QModelIndex& index, int role) const override;

private:
    void reorder(std::vector<int> order);
    std::shared_ptr<const feasibility::Plan> plan_;
    QStringList varying_; // the axes the Varies column shows
    std::vector<int> order_;
    int loaded_ = 0;
    bool fetching_ = false;
    QString filter_;
    int sortColumn_ = -1;
    Qt::SortOrder sortOrder_ = Qt::AscendingOrder;
};

} // namespace commprof::models
