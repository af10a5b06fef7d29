// SPDX-License-Identifier: GPL-3.0-or-later
#include "cap_table_model.h"

#include "report/recommendation_text.h"

namespace commprof::models {
CapTableModel::CapTableModel(QObject* parent)
    : TableModel({"group", "cap MiB", "buckets", "predicted step ms", "predicted exposed ms",
                  "held out ms", "measured step ms", "error", "note"},
                 parent,
                 {CapMb, Buckets, PredictedStepMs, PredictedExposedMs, HeldOutStepMs,
                  MeasuredStepMs, Error}) {}

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

QVariant CapTableModel::cellData(const QModelIndex& index, int role) const {
    const Row& r = rows_[std::size_t(index.row())];
    const analysis::CapGroup& g = *r.group;
    const analysis::CapCandidate* c = r.candidate;
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
    if (!c && index.column() != Group && index.column() != Note) {
        return sort ? sortNumber(std::nullopt) : QVariant();
    }
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
    case CapMb:
        return sort ? QVariant(c->capMb) : QVariant(QString::number(c->capMb, 'g', 6));
    case Buckets:
        return c->buckets;
    case PredictedStepMs:
        return sort ? sortNumber(c->predictedStepMs) : fixed(c->predictedStepMs, 2);
    case PredictedExposedMs:
        return sort ? sortNumber(c->predictedExposedMs) : fixed(c->predictedExposedMs, 2);
    case HeldOutStepMs:
        return sort ? sortNumber(c->heldOutStepMs) : fixed(c->heldOutStepMs, 2);
    case MeasuredStepMs:
        return sort ? sortNumber(c->measuredStepMs) : fixed(c->measuredStepMs, 2);
    case Error:
        return sort ? sortNumber(c->error()) : fixed(c->error(), 1, 100.0, " %");
    default:
        return {};
    }
}

} // namespace commprof::models
