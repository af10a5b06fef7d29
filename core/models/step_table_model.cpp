// SPDX-License-Identifier: GPL-3.0-or-later
#include "step_table_model.h"

namespace commprof::models {
namespace {

RowColumn<StepTableRow> microseconds(QString header, double trace::StepMetrics::*figure) {
    return {std::move(header), [figure](const StepTableRow& r) {
                return QVariant(QString::number(r.metrics.*figure, 'f', 1));
            }};
}

} // namespace

void StepTableModel::setSummary(const trace::TraceSummary& summary) {
    std::vector<StepTableRow> rows;
    if (!summary.steps.empty()) {
        for (const trace::StepMetrics& m : summary.steps) {
            rows.push_back({QVariant(m.step), m});
        }
        rows.push_back({QVariant("total"), summary.totals});
    }
    setRows(std::move(rows));
}

StepTableModel::StepTableModel(QObject* parent)
    : RowTableModel({{"step", [](const StepTableRow& r) { return r.step; }},
                     microseconds("step µs", &trace::StepMetrics::stepUs),
                     microseconds("compute µs", &trace::StepMetrics::computeUs),
                     microseconds("comm µs", &trace::StepMetrics::commUs),
                     microseconds("bookkeeping µs", &trace::StepMetrics::bookkeepingUs),
                     microseconds("overlap µs", &trace::StepMetrics::overlapUs),
                     microseconds("exposed µs", &trace::StepMetrics::exposedCommUs),
                     {"overlap eff.",
                      [](const StepTableRow& r) {
                          const auto& e = r.metrics.overlapEfficiency;
                          return QVariant(e ? QString::number(*e * 100.0, 'f', 1) + " %"
                                            : QString("n/a"));
                      }}},
                    parent) {}

// Figures right-aligned, and no tooltip: the header says what a column is.
QVariant StepTableModel::rowData(const StepTableRow& row, int column, int role) const {
    if (role == Qt::TextAlignmentRole) {
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    }
    return role == Qt::DisplayRole ? shown(row, column) : QVariant();
}

} // namespace commprof::models
