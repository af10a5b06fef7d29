// SPDX-License-Identifier: GPL-3.0-or-later
#include "run_state_model.h"

#include "runner/slurm_step.h"
#include "spec/rank_contract.h"

#include <QJsonObject>

namespace commprof::models {
namespace {

// The fraction of its iterations the running cell has done: its slowest rank's.
std::optional<double> fractionDone(const RunStateModel::CellRow& r) {
    std::optional<double> f;
    for (const auto& p : r.ranks) {
        if (p.of > 0) {
            const double mine = double(p.iteration) / p.of;
            f = f ? std::min(*f, mine) : mine;
        }
    }
    return f;
}

} // namespace

bool RunStateModel::CellRow::finished() const {
    return state != runner::CellState::Pending && state != runner::CellState::Running;
}

RunStateModel::RunStateModel(QObject* parent)
    : TableModel({"cell", "state", "elapsed / deadline", "ranks", "detail", "scheduler"}, parent) {}

void RunStateModel::setPlan(std::shared_ptr<const feasibility::Plan> plan) {
    beginResetModel();
    rows_.clear();
    rowOfId_.clear();
    if (plan) {
        rows_.reserve(qsizetype(plan->cells.size()));
        for (const auto& pc : plan->cells) {
            CellRow r;
            r.id = pc.cell.id;
            r.deadlineS = pc.cell.config.timeoutS;
            rowOfId_.insert(r.id, int(rows_.size()));
            rows_.push_back(r);
        }
    }
    current_.clear();
    stopRequested_ = false;
    endResetModel();
}

int RunStateModel::rowOf(const QString& id) const {
    return rowOfId_.value(id, -1);
}

const RunStateModel::CellRow* RunStateModel::cell(const QString& id) const {
    const int i = rowOf(id);
    return i < 0 ? nullptr : &rows_[i];
}

void RunStateModel::markStopRequested() {
    stopRequested_ = true;
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
        r.ranks.clear();
        current_ = id;
        emit currentCellChanged(id);
    } else if (r.clock.isValid()) {
        r.elapsedMs = r.clock.elapsed();
    }
    if (state == runner::CellState::Failed && stopRequested_ && id == current_) {
        r.stopped = true;
    }
    emit dataChanged(index(i, 0), index(i, ColumnCount - 1));
}

void RunStateModel::onRankProgress(const QString& id, int rank, const QJsonObject& event) {
    const int i = rowOf(id);
    if (i < 0) {
        return;
    }
    namespace P = spec::progress; // the keys commprof-rank writes
    const QString kind = event[P::kEvent].toString();
    if (kind == P::kIteration) {
        RankProgress& p = rows_[i].ranks[rank];
        p.iteration = event[P::kIter].toInt() + 1;
        p.of = event[P::kOf].toInt();
        p.lastStepMs = event[P::kStepMs].toDouble();
        ++p.eventsSeen;
        emit dataChanged(index(i, Ranks), index(i, Ranks));
    } else if (kind == P::kSweep) {
        RankProgress& p = rows_[i].ranks[rank];
        const double bytes = event[P::kBytes].toDouble();
        p.sweptLast = QString("%1 %2").arg(
            event[P::kKind].toString(), bytes >= 1048576 ? QString("%1 MiB").arg(bytes / 1048576.0)
                                      : bytes >= 1024  ? QString("%1 KiB").arg(bytes / 1024.0)
                                                       : QString("%1 B").arg(bytes));
        ++p.eventsSeen;
        emit dataChanged(index(i, Ranks), index(i, Ranks));
    } else if (kind == P::kBucket) {
        emit bucketTimed(id, rank, event[P::kIter].toInt(), event[P::kMs].toDouble(),
                         event[P::kBytes].toInteger());
    }
}

void RunStateModel::onLauncherState(const QString& id, const QJsonObject& state) {
    const int i = rowOf(id);
    if (i < 0) {
        return;
    }
    rows_[i].scheduler = state;
    emit dataChanged(index(i, Scheduler), index(i, Scheduler));
}

void RunStateModel::tick() {
    if (const int i = rowOf(current_);
        i >= 0 && rows_[i].state == runner::CellState::Running && rows_[i].clock.isValid()) {
        rows_[i].elapsedMs = rows_[i].clock.elapsed();
        emit dataChanged(index(i, Elapsed), index(i, Elapsed));
    }
}

int RunStateModel::cellsFinished() const {
    int n = 0;
    for (const CellRow& r : rows_) {
        n += r.finished() ? 1 : 0;
    }
    return n;
}

int RunStateModel::stoppedCount() const {
    int n = 0;
    for (const CellRow& r : rows_) {
        n += r.stopped ? 1 : 0;
    }
    return n;
}

std::optional<double> RunStateModel::etaSeconds() const {
    double runMs = 0;
    int ran = 0, pending = 0;
    const CellRow* running = nullptr;
    for (const CellRow& r : rows_) {
        if ((r.state == runner::CellState::Complete || r.state == runner::CellState::Failed) &&
            r.elapsedMs >= 0) {
            runMs += double(r.elapsedMs);
            ++ran;
        } else if (r.state == runner::CellState::Running) {
            running = &r;
        } else if (r.state == runner::CellState::Pending) {
            ++pending;
        }
    }
    std::optional<double> perCellMs;
    std::optional<double> runningLeftMs;
    if (running) {
        const auto f = fractionDone(*running);
        if (f && *f > 0.05) {
            const double projected = double(running->elapsedMs) / *f;
            runningLeftMs = std::max(0.0, projected - double(running->elapsedMs));
            perCellMs = projected;
        }
    }
    if (ran > 0) {
        perCellMs = runMs / ran; // finished cells are the better basis
    }
    if (!perCellMs) {
        return running || pending > 0 ? std::nullopt : std::optional<double>(0.0);
    }
    if (running && !runningLeftMs) {
        runningLeftMs = std::max(0.0, *perCellMs - double(running->elapsedMs));
    }
    return (runningLeftMs.value_or(0.0) + *perCellMs * pending) / 1000.0;
}

int RunStateModel::rows() const {
    return int(rows_.size());
}

QString RunStateModel::stateText(const CellRow& r) const {
    return r.stopped ? QString("stopped") : QString(runner::toString(r.state));
}

QVariant RunStateModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) {
        return {};
    }
    const CellRow& r = rows_[index.row()];
    if (role == RunningRole) {
        return r.state == runner::CellState::Running;
    }
    if (role == TroubleRole) {
        return r.state == runner::CellState::Failed && !r.stopped;
    }
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole) {
        return {};
    }
    switch (index.column()) {
    case Cell:
        return r.id;
    case State:
        return stateText(r);
    case Elapsed:
        return r.elapsedMs < 0
                   ? QString("-")
                   : QString("%1 / %2 s").arg(r.elapsedMs / 1000.0, 0, 'f', 1).arg(r.deadlineS);
    case Ranks: {
        QStringList parts;
        for (auto it = r.ranks.begin(); it != r.ranks.end(); ++it) {
            if (!it->sweptLast.isEmpty()) {
                parts << QString("r%1 %2").arg(it.key()).arg(it->sweptLast);
                continue;
            }
            parts << QString("r%1 %2/%3 %4 ms")
                         .arg(it.key())
                         .arg(it->iteration)
                         .arg(it->of)
                         .arg(it->lastStepMs, 0, 'f', 1);
        }
        return parts.join("  ");
    }
    case Detail:
        return r.stopped ? "stopped by the user: " + r.detail : r.detail;
    case Scheduler:
        return r.scheduler.isEmpty() ? QString() : runner::schedulerStateText(r.scheduler);
    default:
        return {};
    }
}

} // namespace commprof::models
