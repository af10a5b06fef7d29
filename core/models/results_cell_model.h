// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Every cell of a results directory with its kind, status, reasons and figures. Incomplete and
// failed cells are listed, flagged, with their reasons; their figures are not shown as data.
// A sweep cell has no step figures: its note (the sweep's summary) says what it measured.
// A column per axis a study varies (model, layer, world size, hook, bucket cap, repeat), each
// sorting by its value (a cap as a number).

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
        Model,
        Layer,
        WorldSize,
        Hook, // a DDP cell's settings a study varies: a column each, so that it sorts by any
        CapMb,
        Repeat,
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
    // Whether a column's shown values differ between the cells that have one (an axis column
    // that does not can be hidden).
    bool varies(int column) const;

protected:
    int rows() const override { return int(cells_.size()); }
    QVariant cellData(const QModelIndex& index, int role) const override;

private:
    std::vector<store::CellRow> cells_;
    QMap<QString, QString> notes_;
};

} // namespace commprof::models
