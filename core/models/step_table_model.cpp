// SPDX-License-Identifier: GPL-3.0-or-later
#include "step_table_model.h"

namespace commprof::models {

void StepTableModel::setSummary(const trace::TraceSummary& summary) {
    beginResetModel();
    summary_ = summary;
    endResetModel();
}

StepTableModel::StepTableModel(QObject* parent)
    : TableModel({"step", "step µs", "compute µs", "comm µs", "bookkeeping µs", "overlap µs",
                  "exposed µs", "overlap eff."},
                 parent) {}

int StepTableModel::rows() const {
    if (summary_.steps.empty()) {
        return 0;
    }
    return int(summary_.steps.size()) + 1;
}

const trace::StepMetrics& StepTableModel::rowMetrics(int row) const {
    return row < int(summary_.steps.size()) ? summary_.steps[std::size_t(row)] : summary_.totals;
}

QVariant StepTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) {
        return {};
    }
    const bool totalRow = index.row() == int(summary_.steps.size());
    const auto& m = rowMetrics(index.row());
    if (role == Qt::TextAlignmentRole) {
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    }
    if (role != Qt::DisplayRole) {
        return {};
    }
    switch (index.column()) {
    case Step:
        return totalRow ? QVariant("total") : QVariant(m.step);
    case StepUs:
        return QString::number(m.stepUs, 'f', 1);
    case ComputeUs:
        return QString::number(m.computeUs, 'f', 1);
    case CommUs:
        return QString::number(m.commUs, 'f', 1);
    case BookkeepingUs:
        return QString::number(m.bookkeepingUs, 'f', 1);
    case OverlapUs:
        return QString::number(m.overlapUs, 'f', 1);
    case ExposedUs:
        return QString::number(m.exposedCommUs, 'f', 1);
    case Efficiency:
        return m.overlapEfficiency ? QString::number(*m.overlapEfficiency * 100.0, 'f', 1) + " %"
                                   : QString("n/a");
    default:
        return {};
    }
}

} // namespace commprof::models
