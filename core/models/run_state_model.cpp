// SPDX-License-Identifier: GPL-3.0-or-later
#include "run_state_model.h"

#include "runner/slurm_step.h"
#include "spec/rank_contract.h"
#include "trace/trace_input.h"

#include <QJsonObject>

#include <algorithm>

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

QString stateText(const RunStateModel::CellRow& r) {
    return r.recorded.isEmpty() ? QString(runner::toString(r.state)) : r.recorded;
}

struct Mean {
    double sum = 0;
    int n = 0;
    void add(double v) { sum += v, ++n; }
    std::optional<double> value() const {
        return n > 0 ? std::optional<double>(sum / n) : std::nullopt;
    }
};

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
            r.sweep = pc.cell.isSweep();
            r.sweepMaxBytes = pc.cell.sweepMaxBytes;
            r.worldSize = pc.cell.worldSize;
            rowOfId_.insert(r.id, int(rows_.size()));
            rows_.push_back(r);
        }
    }
    current_.clear();
    endResetModel();
}

const RunStateModel::CellRow* RunStateModel::cell(const QString& id) const {
    const int i = rowOf(id);
    return i < 0 ? nullptr : &rows_[i];
}

void RunStateModel::showRecorded(const QHash<QString, RecordedCell>& cells) {
    if (rows_.isEmpty() || cells.isEmpty()) {
        return;
    }
    for (CellRow& r : rows_) {
        const auto it = cells.constFind(r.id);
        if (it == cells.constEnd()) {
            continue;
        }
        r.recorded = it->status;
        r.detail = it->detail;
        r.state = it->status == "complete"             ? runner::CellState::Complete
                  : it->status == "skipped_infeasible" ? runner::CellState::SkippedInfeasible
                  : it->status == "stopped"            ? runner::CellState::Stopped
                                                       : runner::CellState::Failed;
    }
    emit dataChanged(index(0, 0), index(int(rows_.size()) - 1, ColumnCount - 1));
}

void RunStateModel::onCellState(const QString& id, runner::CellState state, const QString& detail) {
    const int i = rowOf(id);
    // A resumed run passes over the cells it did: they stay as they ended.
    if (i < 0 ||
        (state == runner::CellState::Skipped && rows_[i].state == runner::CellState::Complete)) {
        return;
    }
    CellRow& r = rows_[i];
    r.state = state;
    r.detail = detail;
    r.recorded.clear();
    if (state == runner::CellState::Running) {
        r.clock.start();
        r.elapsedMs = 0;
        r.ranks.clear();
        current_ = id;
        emit currentCellChanged(id);
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
    namespace P = spec::progress; // the keys commprof-rank writes
    const QString kind = event[P::kEvent].toString();
    if (kind == P::kBucket) {
        emit bucketTimed(id, rank, event[P::kIter].toInt(), event[P::kMs].toDouble(),
                         event[P::kBytes].toInteger());
    } else if (kind == P::kIteration || kind == P::kSweep) {
        RankProgress& p = rows_[i].ranks[rank];
        if (kind == P::kIteration) {
            p.iteration = event[P::kIter].toInt() + 1;
            p.of = event[P::kOf].toInt();
            p.lastStepMs = event[P::kStepMs].toDouble();
        } else {
            p.sweptBytes = event[P::kBytes].toDouble();
            p.sweptLast = QString("%1 %2").arg(
                event[P::kKind].toString(),
                QString::fromStdString(trace::formatRoundedByteSize(p.sweptBytes)));
        }
        ++p.eventsSeen;
        emit dataChanged(index(i, Ranks), index(i, Ranks));
    }
}

void RunStateModel::onLauncherState(const QString& id, const QJsonObject& state) {
    if (const int i = rowOf(id); i >= 0) {
        rows_[i].scheduler = state;
        emit dataChanged(index(i, Scheduler), index(i, Scheduler));
    }
}

void RunStateModel::tick() {
    if (const int i = rowOf(current_);
        i >= 0 && rows_[i].state == runner::CellState::Running && rows_[i].clock.isValid()) {
        rows_[i].elapsedMs = rows_[i].clock.elapsed();
        emit dataChanged(index(i, Elapsed), index(i, Elapsed));
    }
}

int RunStateModel::cellsFinished() const {
    return int(std::ranges::count_if(rows_, &CellRow::finished));
}

int RunStateModel::stoppedCount() const {
    return int(std::ranges::count(rows_, runner::CellState::Stopped, &CellRow::state));
}

int RunStateModel::pendingCount() const {
    return int(std::ranges::count(rows_, runner::CellState::Pending, &CellRow::state));
}

QString RunStateModel::stateCounts() const {
    // In the order and the words of the run's summary line.
    const QStringList order{"complete",           "failed",  "incomplete", "stopped", "skipped",
                            "skipped_infeasible", "running", "pending"};
    QHash<QString, int> counts;
    QStringList words = order;
    for (const CellRow& r : rows_) {
        if (const QString s = stateText(r); ++counts[s] == 1 && !words.contains(s)) {
            words << s; // a word a folder recorded that no run says
        }
    }
    QStringList parts;
    for (const QString& s : words) {
        if (const int n = counts.value(s); n > 0) {
            parts << QString("%1 %2").arg(n).arg(s == "skipped" ? QString("already complete") : s);
        }
    }
    return parts.join(", ");
}

std::optional<double> RunStateModel::etaSeconds() const {
    // A cell's kind and world size: what its time depends on most.
    const auto key = [](const CellRow& r) { return r.worldSize * 2 + (r.sweep ? 1 : 0); };
    QHash<int, Mean> bySize;
    Mean byKind[2], overall;
    const CellRow* running = nullptr;
    for (const CellRow& r : rows_) {
        if ((r.state == runner::CellState::Complete || r.state == runner::CellState::Failed ||
             r.state == runner::CellState::Stopped) &&
            r.elapsedMs >= 0) {
            bySize[key(r)].add(double(r.elapsedMs));
            byKind[r.sweep].add(double(r.elapsedMs));
            overall.add(double(r.elapsedMs));
        } else if (r.state == runner::CellState::Running) {
            running = &r;
        }
    }
    std::optional<double> projectedMs; // the running cell's, from its share of iterations done
    // Finished cells are the better basis; the running cell's projection only until there are.
    const auto basis = [&](const CellRow& r) -> std::optional<double> {
        if (const auto it = bySize.constFind(key(r)); it != bySize.constEnd()) {
            return it->value();
        }
        if (const auto m = byKind[r.sweep].value()) {
            return m;
        }
        return overall.n > 0 ? overall.value() : projectedMs;
    };
    double leftMs = 0;
    if (running) {
        if (const auto f = fractionDone(*running); f && *f > 0.05) {
            projectedMs = double(running->elapsedMs) / *f;
        }
        const auto b = projectedMs ? projectedMs : basis(*running);
        if (!b) {
            return std::nullopt;
        }
        leftMs = std::max(0.0, *b - double(running->elapsedMs));
    }
    for (const CellRow& r : rows_) {
        if (r.state == runner::CellState::Pending) {
            const auto b = basis(r);
            if (!b) {
                return std::nullopt;
            }
            leftMs += *b;
        }
    }
    return leftMs / 1000.0;
}

QVariant RunStateModel::cellData(const QModelIndex& index, int role) const {
    const CellRow& r = rows_[index.row()];
    if (role == RunningRole) {
        return r.state == runner::CellState::Running;
    }
    if (role == TroubleRole) {
        return r.state == runner::CellState::Failed;
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
            parts << (!it->sweptLast.isEmpty() ? QString("r%1 %2").arg(it.key()).arg(it->sweptLast)
                                               : QString("r%1 %2/%3 %4 ms")
                                                     .arg(it.key())
                                                     .arg(it->iteration)
                                                     .arg(it->of)
                                                     .arg(it->lastStepMs, 0, 'f', 1));
        }
        return parts.join("  ");
    }
    case Detail:
        return r.state == runner::CellState::Stopped && r.recorded.isEmpty()
                   ? "stopped by the user: " + r.detail
                   : r.detail;
    case Scheduler:
        return r.scheduler.isEmpty() ? QString() : runner::schedulerStateText(r.scheduler);
    default:
        return {};
    }
}

} // namespace commprof::models
