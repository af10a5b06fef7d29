// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One results cell's figures as rows of (figure, value, what it means), for the cell
// inspector. Every verdict is worded from the very number shown beside it, so the text can
// never contradict the figure. New figures (other instruments, sweeps) are new rows.

#include "store/queries.h"
#include "store/sweep_rows.h"

#include "models/table_model.h"

namespace commprof::models {

struct CellFigure {
    QString figure, value, note;
    bool flagged = false;
    QString tip; // more than fits on the line
};

class CellFiguresModel : public RowTableModel<CellFigure> {
    Q_OBJECT
public:
    enum Column { Figure, Value, Note, ColumnCount };
    enum Role { FlaggedRole = Qt::UserRole + 1 }; // a row that says something is wrong

    explicit CellFiguresModel(QObject* parent = nullptr);
    // nullptr clears; ranks, where given, adds one row per rank (its step, communication and
    // exposed communication, and its own two instruments).
    // A DDP cell's prediction from its sweep, and a sweep cell's series, add their rows.
    void setCell(const store::CellRow* cell,
                 const std::vector<store::RankFiguresRow>* ranks = nullptr,
                 const store::StoredPrediction* prediction = nullptr,
                 const std::vector<store::StoredSweep>* sweeps = nullptr);
    // The row of a figure by its name, or -1.
    int rowOf(const QString& figure) const;

protected:
    QVariant rowData(const CellFigure& row, int column, int role) const override;
};

// "agree within ±10 %" or "backend 23.0 % above hook (beyond ±10 %)", from the ratio itself.
QString agreementVerdict(double backendOverHook, double tolerance);

} // namespace commprof::models
