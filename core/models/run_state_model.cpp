#include "run_state_model.h"

#include <QJsonObject>

namespace commprof::models {

void RunStateModel::setPlan(const feasibility::Plan& plan) {
    beginResetModel();
    rows_.clear();
    for (const auto& pc : plan.cells) {
        CellRow r;
        r.id = pc.cell.id;
        r.deadlineS = pc.cell.config.timeoutS;
        rows_.push_back(r);
    }
    current_.clear();
    endResetModel();
}

int RunStateModel::rowOf(const QString& id) const {
    for (int i = 0; i < rows_.size(); ++i) {
        if (rows_[i].id == id) {
            return i;
        }
    }
    return -1;
}

const RunStateModel::CellRow* RunStateModel::cell(const QString& id) const {
    const int i = rowOf(id);
    return i < 0 ? nullptr : &rows_[i];
}

void RunStateModel::onCellState(const QString& id, runner::CellState state, const QString& detail) {
    const int i = rowOf(id);
    if (i < 0) {
        return;
    }
    CellRow& r = rows_[i];
    r.state = state;
    r.detail = detail;
    if (state == runner::CellState::Running) {
        r.clock.start();
        r.elapsedMs = 0;
        current_ = id;
    } else if (r.clock.isValid()) {
        r.elapsedMs = r.clock.elapsed();
    }
    emit dataChanged(index(i, 0), index(i, ColumnCount - 1));
}

void RunStateModel::onRankProgress(const QString& id, int rank, const QJsonObject& event) {
    const int i = rowOf(id);
    if (i < 0) {
        return;
    }
    const QString kind = event["event"].toString();
    if (kind == "iteration") {
        RankProgress& p = rows_[i].ranks[rank];
        p.iteration = event["iter"].toInt() + 1;
        p.of = event["of"].toInt();
        p.lastStepMs = event["step_ms"].toDouble();
        ++p.eventsSeen;
        emit dataChanged(index(i, Ranks), index(i, Ranks));
    } else if (kind == "bucket") {
        emit bucketTimed(id, rank, event["iter"].toInt(), event["ms"].toDouble(),
                         event["bytes"].toInteger());
    }
}

void RunStateModel::tick() {
    for (int i = 0; i < rows_.size(); ++i) {
        if (rows_[i].state == runner::CellState::Running && rows_[i].clock.isValid()) {
            rows_[i].elapsedMs = rows_[i].clock.elapsed();
            emit dataChanged(index(i, Elapsed), index(i, Elapsed));
        }
    }
}

RunStateModel::RunStateModel(QObject* parent)
    : TableModel({"cell", "state", "elapsed / deadline", "ranks", "detail"}, parent) {}

int RunStateModel::rows() const {
    return int(rows_.size());
}

QVariant RunStateModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() ||
        (role != Qt::DisplayRole && role != Qt::ToolTipRole)) {
        return {};
    }
    const CellRow& r = rows_[index.row()];
    switch (index.column()) {
    case Cell:
        return r.id;
    case State:
        return runner::toString(r.state);
    case Elapsed:
        return r.elapsedMs < 0
                   ? QString("-")
                   : QString("%1 / %2 s").arg(r.elapsedMs / 1000.0, 0, 'f', 1).arg(r.deadlineS);
    case Ranks: {
        QStringList parts;
        for (auto it = r.ranks.begin(); it != r.ranks.end(); ++it) {
            parts << QString("r%1 %2/%3 %4 ms")
                         .arg(it.key())
                         .arg(it->iteration)
                         .arg(it->of)
                         .arg(it->lastStepMs, 0, 'f', 1);
        }
        return parts.join("  ");
    }
    case Detail:
        return r.detail;
    default:
        return {};
    }
}

} // namespace commprof::models
