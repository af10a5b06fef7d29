#pragma once
// What the run monitor shows, fed by MatrixRunner's signals: each cell's state and elapsed
// time against its deadline, each rank's iteration progress and last step time, and every
// iteration event seen (so a test can check the monitor saw them all).

#include "runner/matrix_runner.h"

#include "models/table_model.h"
#include <QElapsedTimer>
#include <QMap>

namespace commprof::models {

class RunStateModel : public TableModel {
    Q_OBJECT
public:
    enum Column { Cell, State, Elapsed, Ranks, Detail, ColumnCount };
    struct RankProgress {
        int iteration = 0; // iterations done
        int of = 0;
        double lastStepMs = 0;
        int eventsSeen = 0;
    };
    struct CellRow {
        QString id;
        runner::CellState state = runner::CellState::Pending;
        QString detail;
        double deadlineS = 0;
        QElapsedTimer clock;
        qint64 elapsedMs = -1;
        QMap<int, RankProgress> ranks;
    };

    explicit RunStateModel(QObject* parent = nullptr);
    void setPlan(const feasibility::Plan& plan);
    void onCellState(const QString& id, runner::CellState state, const QString& detail);
    void onRankProgress(const QString& id, int rank, const QJsonObject& event);
    void tick(); // refreshes elapsed times of running cells

    const CellRow* cell(const QString& id) const;
    QString currentCell() const { return current_; }

    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

signals:
    void bucketTimed(const QString& cellId, int rank, int iteration, double ms, qint64 bytes);

protected:
    int rows() const override;

private:
    int rowOf(const QString& id) const;
    QList<CellRow> rows_;
    QString current_;
};

} // namespace commprof::models
