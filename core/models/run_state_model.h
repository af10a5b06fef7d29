// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the run monitor shows, fed by MatrixRunner's signals: each cell's state and elapsed
// time against its deadline, each rank's iteration progress and last step time, every
// iteration event seen (so a test can check the monitor saw them all), the run's overall
// progress and an estimate of the time left. A cell the user stopped is "stopped", not
// "failed". A folder's recorded states (an opened results folder) show until a run changes
// them. Under Slurm each cell also shows the scheduler's state of its job (PENDING,
// RUNNING, COMPLETED, FAILED or CANCELLED with Slurm's reason, and the job id).

#include "runner/matrix_runner.h"

#include "models/table_model.h"
#include <QElapsedTimer>
#include <QHash>
#include <QJsonObject>
#include <QMap>

#include <memory>
#include <optional>

namespace commprof::models {

class RunStateModel : public TableModel {
    Q_OBJECT
public:
    enum Column { Cell, State, Elapsed, Ranks, Detail, Scheduler, ColumnCount };
    enum Role { RunningRole = Qt::UserRole + 1, TroubleRole };
    struct RankProgress {
        int iteration = 0; // iterations done
        int of = 0;
        double lastStepMs = 0;
        int eventsSeen = 0;
        QString sweptLast; // a sweep cell: the last kind and size it measured
        double sweptBytes = 0;
    };
    struct CellRow {
        QString id;
        runner::CellState state = runner::CellState::Pending; // Stopped: ended by the user's Stop
        QString detail;
        double deadlineS = 0;
        QElapsedTimer clock;
        qint64 elapsedMs = -1;
        QMap<int, RankProgress> ranks;
        QJsonObject scheduler;    // the launcher's last state (Slurm: state, job id, reason)
        bool sweep = false;       // a collective sweep, not a DDP cell: its time is of another kind
        double sweepMaxBytes = 0; // its largest message: how far its sizes have come
        int worldSize = 0;
        QString recorded;      // the folder's word (complete, incomplete, ...) until the cell runs
        bool finished() const; // in a state it will not leave in this run
    };
    // A cell as a results folder records it: the store's status and why.
    struct RecordedCell {
        QString status;
        QString detail;
    };

    explicit RunStateModel(QObject* parent = nullptr);
    void setPlan(std::shared_ptr<const feasibility::Plan> plan);
    void onCellState(const QString& id, runner::CellState state, const QString& detail);
    void onRankProgress(const QString& id, int rank, const QJsonObject& event);
    void onLauncherState(const QString& id, const QJsonObject& state);
    // The states a results folder records for the listed cells; a cell it lacks stays pending.
    void showRecorded(const QHash<QString, RecordedCell>& cells);
    void tick(); // refreshes elapsed times of running cells

    const CellRow* cell(const QString& id) const;
    int rowOf(const QString& id) const { return rowOfId_.value(id, -1); }
    QString currentCell() const { return current_; }
    int cellsFinished() const;
    int cellCount() const { return int(rows_.size()); }
    int stoppedCount() const;
    int pendingCount() const;
    // The rows' states counted, as the run's summary words them ("3 complete, 1 already
    // complete, 2 pending"); states no row is in are left out.
    QString stateCounts() const;
    // Seconds left: each cell still to run takes the mean time of the finished cells of its kind
    // (a sweep or a DDP cell) and world size, else of its kind, else of every finished cell, else
    // the running cell's projection from its iterations; sweeps and DDP cells differ several
    // fold. Nothing before there is a basis.
    std::optional<double> etaSeconds() const;

signals:
    void bucketTimed(const QString& cellId, int rank, int iteration, double ms, qint64 bytes);
    void currentCellChanged(const QString& cellId);

protected:
    int rows() const override { return int(rows_.size()); }
    QVariant cellData(const QModelIndex& index, int role) const override;

private:
    QList<CellRow> rows_;
    QHash<QString, int> rowOfId_;
    QString current_;
};

} // namespace commprof::models
