#include "cell_table_model.h"

namespace commprof::models {
namespace {
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
}

void CellTableModel::setPlan(const feasibility::Plan& plan) {
    beginResetModel();
    plan_ = plan;
    endResetModel();
}

int CellTableModel::worstRow() const {
    int worst = -1;
    double ratio = -1;
    for (int i = 0; i < int(plan_.cells.size()); ++i) {
        const auto& e = plan_.cells[std::size_t(i)].estimate;
        const double r = std::max(e.host.ratio(), e.device.used ? e.device.ratio() : 0.0);
        if (r > ratio) {
            ratio = r;
            worst = i;
        }
    }
    return worst;
}

CellTableModel::CellTableModel(QObject* parent)
    : TableModel(
          {"cell", "layer", "ranks", "feasible", "binding", "host GiB", "device GiB", "why not"},
          parent) {}

int CellTableModel::rows() const {
    return int(plan_.cells.size());
}

QVariant CellTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() ||
        (role != Qt::DisplayRole && role != Qt::ToolTipRole)) {
        return {};
    }
    const auto& pc = plan_.cells[std::size_t(index.row())];
    switch (index.column()) {
    case Id:
        return pc.cell.id;
    case Layer:
        return pc.cell.layer.name;
    case WorldSize:
        return pc.cell.worldSize;
    case Feasible:
        return pc.estimate.feasible ? "yes" : "skipped_infeasible";
    case Binding:
        return feasibility::toString(pc.estimate.binding);
    case HostGiB:
        return QString::number(pc.estimate.host.total() / kGiB, 'f', 2);
    case DeviceGiB:
        return pc.estimate.device.used ? QString::number(pc.estimate.device.total() / kGiB, 'f', 2)
                                       : QString("-");
    case Reason:
        return pc.estimate.reason;
    default:
        return {};
    }
}

} // namespace commprof::models
