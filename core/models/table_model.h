// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What every flat table model here shares: fixed, named columns and no children. A subclass
// says how many rows it has (rows()) and what a cell shows (cellData()).
//
// RowTableModel goes one step further for a model whose rows are plain values: its columns
// are a table of (header, what a row shows), so the bounds, the roles and the column switch
// are written once here and not again in every model.

#include "spec/mapped.h"

#include <QAbstractTableModel>
#include <QStringList>

#include <functional>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

namespace commprof::models {

class TableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    // `rightAligned`: the columns of figures, aligned right and the others left; where none are
    // given, cellData answers Qt::TextAlignmentRole.
    TableModel(QStringList columns, QObject* parent, QList<int> rightAligned = {})
        : QAbstractTableModel(parent), columns_(std::move(columns)),
          rightAligned_(std::move(rightAligned)) {}

    int rowCount(const QModelIndex& parent = {}) const final {
        return parent.isValid() ? 0 : rows();
    }
    int columnCount(const QModelIndex& parent = {}) const final {
        return parent.isValid() ? 0 : int(columns_.size());
    }
    // Bounds checked here, once: cellData sees only an index inside the table.
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const final {
        if (!index.isValid() || index.row() >= rows() || index.column() >= columns_.size()) {
            return {};
        }
        if (role == Qt::TextAlignmentRole && !rightAligned_.isEmpty()) {
            const bool right = rightAligned_.contains(index.column());
            return QVariant(Qt::AlignVCenter | (right ? Qt::AlignRight : Qt::AlignLeft));
        }
        return cellData(index, role);
    }
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const final {
        if (orientation != Qt::Horizontal || section < 0 || section >= columns_.size()) {
            return {};
        }
        if (role == Qt::ToolTipRole && section < tips_.size() && !tips_[section].isEmpty()) {
            return tips_[section];
        }
        return role == Qt::DisplayRole ? QVariant(columns_[section]) : QVariant();
    }

protected:
    virtual int rows() const = 0;
    virtual QVariant cellData(const QModelIndex& index, int role) const = 0;
    // What each column holds, shown when the pointer rests on its header (a short header such
    // as "exposed comm" does not say of what, or how it is measured).
    void setColumnTips(QStringList tips) { tips_ = std::move(tips); }

private:
    QStringList columns_;
    QStringList tips_;
    QList<int> rightAligned_;
};

// A figure as a SortRole gives it: a number, where a missing one sorts first.
inline QVariant sortNumber(const std::optional<double>& v) {
    return v ? *v : -std::numeric_limits<double>::infinity();
}

// A figure as shown: scaled, to `decimals` places and with its suffix; "-" where missing.
inline QVariant fixed(const std::optional<double>& v, int decimals, double scale = 1.0,
                      const char* suffix = "") {
    return v ? QVariant(QString::number(*v * scale, 'f', decimals) + suffix)
             : QVariant(QString("-"));
}

// One column of a RowTableModel: its header and what a row shows in it.
template <class Row> struct RowColumn {
    QString header;
    std::function<QVariant(const Row&)> show;
};

// A column that shows one member of the row as it is.
template <class Row, class T> RowColumn<Row> memberColumn(QString header, T Row::*member) {
    return {std::move(header), [member](const Row& r) { return QVariant::fromValue(r.*member); }};
}

template <class Row> class RowTableModel : public TableModel {
public:
    using Column = RowColumn<Row>;
    using Columns = std::vector<Column>;

protected:
    QVariant cellData(const QModelIndex& index, int role) const final {
        return rowData(rows_[std::size_t(index.row())], index.column(), role);
    }
    RowTableModel(Columns columns, QObject* parent)
        : TableModel(spec::mapped<QStringList>(columns, [](const Column& c) { return c.header; }),
                     parent),
          columns_(std::move(columns)) {}

    // What a row gives for a role. By default its column's text, for display and as the
    // tooltip; a model with roles of its own answers them and hands the rest here.
    virtual QVariant rowData(const Row& row, int column, int role) const {
        if (role != Qt::DisplayRole && role != Qt::ToolTipRole) {
            return {};
        }
        return shown(row, column);
    }
    QVariant shown(const Row& row, int column) const {
        return columns_[std::size_t(column)].show(row);
    }

    void setRows(std::vector<Row> rows) {
        beginResetModel();
        rows_ = std::move(rows);
        endResetModel();
    }
    const std::vector<Row>& rowValues() const { return rows_; }
    int rows() const final { return int(rows_.size()); }

private:
    Columns columns_;
    std::vector<Row> rows_;
};

} // namespace commprof::models
