// SPDX-License-Identifier: GPL-3.0-or-later
#include "cap_table_model.h"

#include "report/recommendation_text.h"

#include <limits>

namespace commprof::models {
namespace {

QVariant ms(const std::optional<double>& v) {
    return v ? QVariant(QString::number(*v, 'f', 2)) : QVariant(QString("-"));
}

QVariant sortable(const std::optional<double>& v) {
    return v ? *v : -std::numeric_limits<double>::infinity();
}

} // namespace

CapTableModel::CapTableModel(QObject* parent)
    : TableModel({"group", "cap MiB", "buckets", "predicted step ms", "predicted exposed ms",
                  "held out ms", "measured step ms", "error", "note"},
                 parent) {}

void CapTableModel::setGroups(const std::vector<analysis::CapGroup>& groups) {
    beginResetModel();
    groups_ = groups;
    rows_.clear();
    for (const analysis::CapGroup& g : groups_) {
        if (g.candidates.empty()) {
            rows_.push_back({&g, nullptr});
        }
        for (const analysis::CapCandidate& c : g.candidates) {
            rows_.push_back({&g, &c});
        }
    }
    endResetModel();
}

QVariant CapTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) {
        return {};
    }
    const Row& r = rows_[std::size_t(index.row())];
    const analysis::CapGroup& g = *r.group;
    const analysis::CapCandidate* c = r.candidate;
    if (role == Qt::TextAlignmentRole) {
        const bool text = index.column() == Group || index.column() == Note;
        return QVariant(Qt::AlignVCenter | (text ? Qt::AlignLeft : Qt::AlignRight));
    }
    if (role == Qt::ToolTipRole && index.column() == Group) {
        return report::actionLine(g);
    }
    if (role == Qt::ToolTipRole && index.column() == MeasuredStepMs && c) {
        return c->measuredCell;
    }
    if (role != Qt::DisplayRole && role != SortRole) {
        return {};
    }
    const bool sort = role == SortRole;
    switch (index.column()) {
    case Group:
        return report::groupName(g);
    case Note: {
        if (!c) {
            return "not predicted: " + g.reason;
        }
        QStringList notes;
        for (const auto& [cap, word] : {std::pair{g.fastestCapMb, "fastest"},
                                        {g.recommendedCapMb, "recommended"},
                                        {g.advice.currentCapMb, "current"}}) {
            if (cap == c->capMb) {
                notes << word;
            }
        }
        return notes.join(", ");
    }
    default:
        break;
    }
    if (!c) {
        return sort ? QVariant(-std::numeric_limits<double>::infinity()) : QVariant();
    }
    switch (index.column()) {
    case CapMb:
        return sort ? QVariant(c->capMb) : QVariant(QString::number(c->capMb, 'g', 6));
    case Buckets:
        return c->buckets;
    case PredictedStepMs:
        return sort ? sortable(c->predictedStepMs) : ms(c->predictedStepMs);
    case PredictedExposedMs:
        return sort ? sortable(c->predictedExposedMs) : ms(c->predictedExposedMs);
    case HeldOutStepMs:
        return sort ? sortable(c->heldOutStepMs) : ms(c->heldOutStepMs);
    case MeasuredStepMs:
        return sort ? sortable(c->measuredStepMs) : ms(c->measuredStepMs);
    case Error: {
        const auto e = c->error();
        if (sort) {
            return sortable(e);
        }
        return e ? QVariant(QString("%1 %").arg(*e * 100, 0, 'f', 1)) : QVariant(QString("-"));
    }
    default:
        return {};
    }
}

} // namespace commprof::models
