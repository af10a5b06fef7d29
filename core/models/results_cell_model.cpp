// SPDX-License-Identifier: GPL-3.0-or-later
#include "results_cell_model.h"

#include "spec/mapped.h"
#include "store/cell_columns.h"

#include <algorithm>

namespace commprof::models {
namespace {

QVariant capOf(const store::CellRow& c) {
    return c.axes.value("bucket_cap_mb").toString();
}

// What a column sorts by where that is not what it shows; an invalid QVariant otherwise.
QVariant sortKey(const store::CellRow& c, int column) {
    // Flagged cells' figures are not data, so they sort with the missing ones.
    const bool show = c.complete();
    switch (column) {
    case ResultsCellModel::CapMb: {
        bool number = false;
        const double cap = capOf(c).toString().toDouble(&number);
        return sortNumber(number ? std::optional(cap) : std::nullopt); // a sweep has none
    }
    case ResultsCellModel::Repeat:
        return c.repeat;
    case ResultsCellModel::Status:
        return c.status;
    case ResultsCellModel::StepMs:
        return sortNumber(show ? c.stepMs : std::nullopt);
    case ResultsCellModel::CommMs:
        return sortNumber(show ? (c.traceCommMs ? c.traceCommMs : c.hookCommMs) : std::nullopt);
    case ResultsCellModel::Overhead:
        return sortNumber(show ? c.commOverheadFraction : std::nullopt);
    case ResultsCellModel::Agreement:
        return sortNumber(show ? c.hookTraceAgreement : std::nullopt);
    default:
        return {};
    }
}

// The cell column each Column shows, in the enum's order; its header is the column's. The hook
// and the cap are axes of cell.json, not columns of the store: their headers are given here.
constexpr const char* kShown[ResultsCellModel::ColumnCount] = {"id",
                                                               "kind",
                                                               "status",
                                                               "model",
                                                               "layer",
                                                               "world_size",
                                                               "axis:hook",
                                                               "axis:cap MiB",
                                                               "repeat",
                                                               "step_ms",
                                                               "comm_ms",
                                                               "comm_overhead_fraction",
                                                               "hook_trace_agreement",
                                                               "reasons"};

QStringList headers() {
    return spec::mapped<QStringList>(kShown, [](const char* name) {
        const QString shown(name);
        return shown.startsWith("axis:") ? shown.mid(5) : QString(store::cellColumn(name).view);
    });
}

// A header's tooltip: the column's line of docs/formats.md, without its Markdown.
QStringList columnTips() {
    return spec::mapped<QStringList>(kShown, [](const char* name) {
        const QString shown(name);
        return shown == "axis:hook"        ? QString("the DDP communication hook (hook:)")
               : shown == "axis:cap MiB"   ? QString("DDP's bucket cap in MiB (bucket_cap_mb:)")
               : shown.startsWith("axis:") ? QString()
                                           : QString(store::cellColumn(name).doc).remove('`');
    });
}

} // namespace

void ResultsCellModel::setCells(std::vector<store::CellRow> cells, QMap<QString, QString> notes) {
    beginResetModel();
    cells_ = std::move(cells);
    notes_ = std::move(notes);
    endResetModel();
}

int ResultsCellModel::rowOf(const QString& id) const {
    const auto it = std::ranges::find(cells_, id, &store::CellRow::id);
    return it == cells_.end() ? -1 : int(it - cells_.begin());
}

bool ResultsCellModel::varies(int column) const {
    QString first; // a cell without the axis (a sweep has no hook) says nothing either way
    for (int row = 0; row < rows(); ++row) {
        const QString v = data(index(row, column)).toString();
        if (v.isEmpty()) {
            continue;
        }
        if (first.isEmpty()) {
            first = v;
        } else if (v != first) {
            return true;
        }
    }
    return false;
}

QString ResultsCellModel::idAt(int row) const {
    return row >= 0 && row < int(cells_.size()) ? cells_[std::size_t(row)].id : QString();
}

ResultsCellModel::ResultsCellModel(QObject* parent)
    : TableModel(headers(), parent,
                 {WorldSize, CapMb, Repeat, StepMs, CommMs, Overhead, Agreement}) {
    setColumnTips(columnTips());
}

QVariant ResultsCellModel::cellData(const QModelIndex& index, int role) const {
    const store::CellRow& c = cells_[std::size_t(index.row())];
    const bool flagged = c.status == "incomplete" || c.status == "failed" || c.status == "stopped";
    if (role == CellIdRole) {
        return c.id;
    }
    if (role == FlaggedRole) {
        return flagged;
    }
    if (role == SortRole) {
        if (QVariant key = sortKey(c, index.column()); key.isValid()) {
            return key;
        }
        role = Qt::DisplayRole; // the others sort by what they show
    }
    if (role == Qt::ToolTipRole) {
        if (index.column() == Agreement && !c.agreementReason.isEmpty()) {
            return c.agreementReason; // flagged, or why it was not judged
        }
        if (!c.reasons.isEmpty()) {
            return c.reasons.join("\n");
        }
        return notes_.contains(c.id) ? QVariant(notes_.value(c.id)) : QVariant();
    }
    if (role != Qt::DisplayRole) {
        return {};
    }
    // A flagged cell's figures are not data: only its status and reasons are shown.
    const bool show = c.complete();
    switch (index.column()) {
    case Id:
        return c.id;
    case Kind:
        return c.kind;
    case Status:
        return flagged ? "⚑ " + c.status : c.status;
    case Model:
        return c.model;
    case WorldSize:
        return c.worldSize;
    case Layer:
        return c.layer;
    case Hook:
        return c.axes.value("hook").toString();
    case CapMb:
        return capOf(c);
    case Repeat:
        return c.isSweep() ? QVariant() : QVariant(c.repeat);
    case StepMs:
        return show ? fixed(c.stepMs, 1) : QVariant("-");
    case CommMs:
        return show ? fixed(c.traceCommMs ? c.traceCommMs : c.hookCommMs, 2) : QVariant("-");
    case Overhead:
        return show ? fixed(c.commOverheadFraction, 1, 100.0, " %") : QVariant("-");
    case Agreement:
        // A ratio beyond 10 % is flagged, one that was not judged says so: a bare 0.236 next to
        // 1.007 would read as a measurement to trust.
        if (!show) {
            return "-";
        }
        if (c.agreementFlagged) {
            return "⚑ " + fixed(c.hookTraceAgreement, 3).toString();
        }
        return c.agreementReason.isEmpty()
                   ? fixed(c.hookTraceAgreement, 3)
                   : fixed(c.hookTraceAgreement, 3).toString() + " (not judged)";
    case Reasons:
        return c.reasons.isEmpty() ? notes_.value(c.id) : c.reasons.join("; ");
    default:
        return {};
    }
}

} // namespace commprof::models
