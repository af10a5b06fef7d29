// SPDX-License-Identifier: GPL-3.0-or-later
#include "cell_table_model.h"

#include "jobs/release.h"
#include "spec/units.h"
#include "trace/trace_input.h"

#include <QHash>
#include <QScopedValueRollback>
#include <QSet>

#include <algorithm>

namespace commprof::models {
namespace {

// What a column sorts by: a number where the column holds numbers.
QVariant sortKey(const feasibility::PlannedCell& pc, int column, const QStringList& varying) {
    switch (column) {
    case CellTableModel::Varies:
        return CellTableModel::variesText(pc.cell, varying);
    case CellTableModel::Layer:
        return pc.cell.layer.name;
    case CellTableModel::WorldSize:
        return pc.cell.worldSize;
    case CellTableModel::Feasible:
        return pc.estimate.feasible;
    case CellTableModel::Binding:
        return QString(feasibility::toString(pc.estimate.binding));
    case CellTableModel::HostGiB:
        return pc.estimate.host.total();
    case CellTableModel::DeviceGiB:
        return pc.estimate.device.used ? pc.estimate.device.total() : -1.0;
    case CellTableModel::Reason:
        return pc.estimate.reason;
    default:
        return pc.cell.id;
    }
}

bool less(const QVariant& a, const QVariant& b) {
    return QVariant::compare(a, b) == QPartialOrdering::Less;
}

} // namespace

CellTableModel::CellTableModel(QObject* parent)
    : TableModel({"cell", "varies", "layer", "ranks", "feasible", "binding", "host GiB",
                  "device GiB", "why not", "per node"},
                 parent, {WorldSize, HostGiB, DeviceGiB}),
      plan_(std::make_shared<const feasibility::Plan>()) {}

QStringList CellTableModel::varyingAxes(const feasibility::Plan& plan) {
    QStringList keys;
    QHash<QString, QSet<QString>> values;
    for (const auto& pc : plan.cells) {
        for (const auto& [key, value] : pc.cell.axes) {
            if (key == "layer" || key == "world_size") {
                continue;
            }
            QSet<QString>& seen = values[key];
            if (seen.isEmpty() && !keys.contains(key)) {
                keys << key;
            }
            if (seen.size() < 2) { // two values say it varies; 100k cells need no more
                seen.insert(value);
            }
        }
    }
    keys.removeIf([&](const QString& k) { return values[k].size() < 2; });
    return keys;
}

QString CellTableModel::variesText(const matrix::Cell& cell, const QStringList& varying) {
    QStringList parts;
    for (const auto& [key, value] : cell.axes) {
        if (varying.contains(key)) {
            parts << key + "=" + value;
        }
    }
    return parts.join(' ');
}

std::vector<int> CellTableModel::order(const feasibility::Plan& plan, const QString& filter,
                                       int sortColumn, Qt::SortOrder sortOrder) {
    std::vector<int> out;
    out.reserve(plan.cells.size());
    for (int i = 0; i < int(plan.cells.size()); ++i) {
        const auto& c = plan.cells[std::size_t(i)].cell;
        if (filter.isEmpty() || c.id.contains(filter, Qt::CaseInsensitive) ||
            c.layer.name.contains(filter, Qt::CaseInsensitive)) {
            out.push_back(i);
        }
    }
    if (sortColumn >= 0 && sortColumn < ColumnCount) {
        std::vector<QVariant> keys(plan.cells.size());
        const QStringList varying = sortColumn == Varies ? varyingAxes(plan) : QStringList{};
        for (int i : out) {
            keys[std::size_t(i)] = sortKey(plan.cells[std::size_t(i)], sortColumn, varying);
        }
        std::stable_sort(out.begin(), out.end(), [&](int a, int b) {
            return sortOrder == Qt::AscendingOrder
                       ? less(keys[std::size_t(a)], keys[std::size_t(b)])
                       : less(keys[std::size_t(b)], keys[std::size_t(a)]);
        });
    }
    return out;
}

int CellTableModel::worstCell(const feasibility::Plan& plan) {
    const auto ratio = [](const feasibility::PlannedCell& pc) {
        const auto& e = pc.estimate;
        return std::max(e.host.ratio(), e.device.used ? e.device.ratio() : 0.0);
    };
    const auto worst = std::ranges::max_element(plan.cells, {}, ratio);
    return worst == plan.cells.end() ? -1 : int(worst - plan.cells.begin());
}

void CellTableModel::setPlan(std::shared_ptr<const feasibility::Plan> plan,
                             std::optional<std::vector<int>> order) {
    jobs::releaseInBackground(
        std::exchange(plan_, plan ? std::move(plan) : std::make_shared<const feasibility::Plan>()));
    varying_ = varyingAxes(*plan_);
    reorder(order ? std::move(*order)
                  : CellTableModel::order(*plan_, filter_, sortColumn_, sortOrder_));
}

void CellTableModel::reorder(std::vector<int> order) {
    beginResetModel();
    order_ = std::move(order);
    loaded_ = std::min(int(order_.size()), kChunk);
    endResetModel();
}

void CellTableModel::setFilter(const QString& text) {
    if (text != filter_) {
        filter_ = text;
        reorder(order(*plan_, filter_, sortColumn_, sortOrder_));
    }
}

void CellTableModel::sort(int column, Qt::SortOrder order) {
    sortColumn_ = column;
    sortOrder_ = order;
    emit layoutAboutToBeChanged();
    const std::vector<int> before = order_;
    order_ = CellTableModel::order(*plan_, filter_, sortColumn_, sortOrder_);
    // A sort keeps as many rows loaded as before, and the selection on the same cells.
    loaded_ = std::min(int(order_.size()), std::max(loaded_, kChunk));
    std::vector<int> rowOfPlanIndex(plan_->cells.size(), -1);
    for (int row = 0; row < loaded_; ++row) {
        rowOfPlanIndex[std::size_t(order_[std::size_t(row)])] = row;
    }
    const QModelIndexList from = persistentIndexList();
    QModelIndexList to;
    for (const QModelIndex& i : from) {
        const int row = i.row() < int(before.size())
                            ? rowOfPlanIndex[std::size_t(before[std::size_t(i.row())])]
                            : -1;
        to << (row < 0 ? QModelIndex() : index(row, i.column()));
    }
    changePersistentIndexList(from, to);
    emit layoutChanged();
}

int CellTableModel::planIndexAt(int row) const {
    return row >= 0 && row < int(order_.size()) ? order_[std::size_t(row)] : -1;
}

int CellTableModel::rowOfCell(const QString& cellId) {
    for (int row = 0; row < int(order_.size()); ++row) {
        if (plan_->cells[std::size_t(order_[std::size_t(row)])].cell.id == cellId) {
            if (row >= loaded_ && !fetching_) {
                const QScopedValueRollback<bool> inside(fetching_, true);
                beginInsertRows({}, loaded_, row);
                loaded_ = row + 1;
                endInsertRows();
            }
            return row;
        }
    }
    return -1;
}

bool CellTableModel::canFetchMore(const QModelIndex& parent) const {
    return !parent.isValid() && loaded_ < int(order_.size());
}

void CellTableModel::fetchMore(const QModelIndex& parent) {
    // Views and testers may ask again from inside the insertion they caused.
    if (fetching_ || !canFetchMore(parent)) {
        return;
    }
    const QScopedValueRollback<bool> inside(fetching_, true);
    const int more = std::min(kChunk, int(order_.size()) - loaded_);
    beginInsertRows({}, loaded_, loaded_ + more - 1);
    loaded_ += more;
    endInsertRows();
}

QVariant CellTableModel::cellData(const QModelIndex& index, int role) const {
    const auto& pc = plan_->cells[std::size_t(order_[std::size_t(index.row())])];
    if (role == InfeasibleRole) {
        return !pc.estimate.feasible;
    }
    if (role == PlanIndexRole) {
        return order_[std::size_t(index.row())];
    }
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole) {
        return {};
    }
    switch (index.column()) {
    case Feasible:
        // A sweep the budget shrank is feasible only as less than was asked for: said here,
        // where the user reads "yes".
        if (pc.estimate.feasible && pc.cell.sweepCappedFrom) {
            return QString("yes, sweep to %1")
                .arg(QString::fromStdString(trace::formatRoundedByteSize(pc.cell.sweepMaxBytes)));
        }
        return pc.estimate.feasible ? "yes" : "skipped_infeasible";
    case HostGiB:
        return QString::number(pc.estimate.host.total() / spec::kGiB, 'f', 2);
    case DeviceGiB:
        return pc.estimate.device.used
                   ? QString::number(pc.estimate.device.total() / spec::kGiB, 'f', 2)
                   : QString("-");
    case Reason: {
        QStringList why{pc.estimate.reason, feasibility::sweepCapText(pc)};
        why.removeAll(QString()); // and the empty ones: QString() == ""
        return why.join("; ");
    }
    case Nodes:
        return plan_->budget.perNode ? feasibility::nodeDemandText(pc) : QString();
    default: // the id, the varying axes, the layer, the ranks and the binding pool as they sort
        return sortKey(pc, index.column(), varying_);
    }
}

} // namespace commprof::models
