// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The selected range by slice name (Perfetto's area-selection "Slices" tab, hotspot's
// bottom-up): name, count, total and self time clipped to the range, and class, sortable by
// any column. Display only: the inspector hands it the values of timeline::aggregateRange.

#include "timeline/range_aggregate.h"

#include <QWidget>

#include <vector>

class QLabel;
class QStandardItemModel;
class QTableView;

namespace commprof::widgets {

class RangeAggregateView : public QWidget {
    Q_OBJECT
public:
    enum Column { Name, Count, Total, Self, Class, ColumnCount };
    // The role every cell sorts by: numbers as numbers, not as their text.
    static constexpr int kSortRole = Qt::UserRole + 1;

    explicit RangeAggregateView(QWidget* parent = nullptr);

    void showRange(double fromUs, double toUs, int ranks,
                   const std::vector<timeline::NameAggregate>& rows);
    void clear();

    QTableView* table() const { return table_; }
    QStandardItemModel* model() const { return model_; }
    QString headerText() const;

private:
    QLabel* header_ = nullptr;
    QTableView* table_ = nullptr;
    QStandardItemModel* model_ = nullptr;
};

} // namespace commprof::widgets
