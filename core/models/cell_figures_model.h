#pragma once
// One results cell's figures as rows of (figure, value, what it means), for the cell
// inspector. Every verdict is worded from the very number shown beside it, so the text can
// never contradict the figure. New figures (other instruments, sweeps) are new rows.

#include "store/queries.h"

#include "models/table_model.h"

namespace commprof::models {

class CellFiguresModel : public TableModel {
    Q_OBJECT
public:
    enum Column { Figure, Value, Note, ColumnCount };
    enum Role { FlaggedRole = Qt::UserRole + 1 }; // a row that says something is wrong

    explicit CellFiguresModel(QObject* parent = nullptr);
    void setCell(const store::CellRow* cell); // nullptr clears
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    // The row of a figure by its name, or -1.
    int rowOf(const QString& figure) const;

protected:
    int rows() const override;

private:
    struct Row {
        QString figure, value, note;
        bool flagged = false;
        QString tip; // more than fits on the line
    };
    QList<Row> rows_;
};

// "agree within ±10 %" or "trace 23.0 % above hook (beyond ±10 %)", from the ratio itself.
QString agreementVerdict(double traceOverHook, double tolerance);

} // namespace commprof::models
