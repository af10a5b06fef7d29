// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What every flat table model here shares: fixed, named columns and no children. A subclass
// says how many rows it has (rows()) and what a cell shows (data()).

#include <QAbstractTableModel>
#include <QStringList>

namespace commprof::models {

class TableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    TableModel(QStringList columns, QObject* parent)
        : QAbstractTableModel(parent), columns_(std::move(columns)) {}

    int rowCount(const QModelIndex& parent = {}) const final {
        return parent.isValid() ? 0 : rows();
    }
    int columnCount(const QModelIndex& parent = {}) const final {
        return parent.isValid() ? 0 : int(columns_.size());
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
    // What each column holds, shown when the pointer rests on its header (a short header such
    // as "exposed comm" does not say of what, or how it is measured).
    void setColumnTips(QStringList tips) { tips_ = std::move(tips); }

private:
    QStringList columns_;
    QStringList tips_;
};

} // namespace commprof::models
