// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Every cell of a results directory with its kind, status, reasons and figures. Incomplete and
// failed cells are listed, flagged, with their reasons; their figures are not shown as data.
// A sweep cell has no step figures: its note (the sweep's summary) says what it measured.

#include "store/queries.h"

#include "models/table_model.h"

#include <QMap>

namespace commprof::models {

class ResultsCellModel : public TableModel {
    Q_OBJECT
public:
    enum Column {
        Id,
        Kind,
        Status,
        WorldSize,
        Layer,
        StepMs,
        CommMs,
        Overhead,
        Agreement,
        Reasons,
        ColumnCount
    };
    // SortRole: numbers as numbers (a missing figure sorts first), text as text.
    enum Role { CellIdRole = Qt::UserRole + 1, FlaggedRole, SortRole };
    explicit ResultsCellModel(QObject* parent = nullptr);
    // notes: by cell id, shown where a cell has no reasons (report::cellNotes).
    void setCells(std::vector<store::CellRow> cells, QMap<QString, QString> notes = {});
    int rowOf(const QString& cellId) const;
    QString idAt(int row) const;

    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

protected:
    int rows() const override;

private:
    std::vector<store::CellRow> cells_;
    QMap<QString, QString> notes_;
};

} // namespace commprof::models
