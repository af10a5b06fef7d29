#include "cell_figures_model.h"

#include "analysis/cell_metrics.h"

#include <cmath>

namespace commprof::models {
namespace {

QString ms(const std::optional<double>& v) {
    return v ? QString::number(*v, 'f', 2) + " ms" : QString("n/a");
}

QString percentOf(const std::optional<double>& part, const std::optional<double>& whole) {
    return part && whole && *whole > 0
               ? QString("%1 % of the step").arg(*part / *whole * 100.0, 0, 'f', 1)
               : QString();
}

} // namespace

QString agreementVerdict(double traceOverHook, double tolerance) {
    const double deviation = traceOverHook - 1.0;
    const QString band = QString("±%1 %").arg(tolerance * 100.0, 0, 'g', 3);
    if (std::abs(deviation) <= tolerance) {
        return QString("agree within %1").arg(band);
    }
    return QString("trace %1 % %2 hook (beyond %3)")
        .arg(std::abs(deviation) * 100.0, 0, 'f', 1)
        .arg(deviation > 0 ? "above" : "below", band);
}

CellFiguresModel::CellFiguresModel(QObject* parent)
    : TableModel({"figure", "value", "meaning"}, parent) {}

void CellFiguresModel::setCell(const store::CellRow* cell) {
    beginResetModel();
    rows_.clear();
    if (cell) {
        rows_.push_back({"status", cell->status, cell->reasons.join("; "), !cell->complete()});
        if (cell->complete()) {
            rows_.push_back({"step (median)", ms(cell->stepMs), {}});
            rows_.push_back(
                {"compute", ms(cell->computeMs), percentOf(cell->computeMs, cell->stepMs)});
            rows_.push_back({"exposed communication", ms(cell->exposedCommMs),
                             percentOf(cell->exposedCommMs, cell->stepMs)});
            rows_.push_back({"bookkeeping", ms(cell->bookkeepingMs),
                             percentOf(cell->bookkeepingMs, cell->stepMs)});
            rows_.push_back({"comm. per step, hook", ms(cell->hookCommMs),
                             "median of the recorded iterations"});
            rows_.push_back(
                {"comm. per step, trace", ms(cell->traceCommMs), "median of the traced steps"});
            if (cell->hookTraceAgreement) {
                // Not the ratio of the two medians above: both instruments summed over the
                // steps both of them saw, so the comparison is like for like.
                const double r = *cell->hookTraceAgreement;
                const double tol = analysis::kAgreementTolerance;
                rows_.push_back({"trace / hook, same steps", QString::number(r, 'f', 3),
                                 agreementVerdict(r, tol), std::abs(r - 1.0) > tol,
                                 "Both instruments summed over the steps both of them saw: not "
                                 "the ratio of the two medians above"});
            }
            if (cell->overlapEfficiency) {
                rows_.push_back({"overlap efficiency",
                                 QString::number(*cell->overlapEfficiency * 100.0, 'f', 1) + " %",
                                 "of communication hidden by compute"});
            }
        }
    }
    endResetModel();
}

int CellFiguresModel::rows() const {
    return int(rows_.size());
}

int CellFiguresModel::rowOf(const QString& figure) const {
    for (int i = 0; i < rows_.size(); ++i) {
        if (rows_[i].figure == figure) {
            return i;
        }
    }
    return -1;
}

QVariant CellFiguresModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rows_.size()) {
        return {};
    }
    const Row& r = rows_[index.row()];
    if (role == FlaggedRole) {
        return r.flagged;
    }
    if (role == Qt::ToolTipRole) {
        return r.tip.isEmpty() ? r.note : r.tip; // the meaning, also where its column is hidden
    }
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole) {
        return {};
    }
    switch (index.column()) {
    case Figure:
        return r.figure;
    case Value:
        return r.value;
    case Note:
        return r.note;
    default:
        return {};
    }
}

} // namespace commprof::models
