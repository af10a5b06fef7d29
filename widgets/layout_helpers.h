// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The two arrangements every view here is built from: panes in a splitter that never
// collapses one to nothing, and a table with its filter line above it.

#include <QSplitter>

#include <initializer_list>
#include <utility>

class QLineEdit;
class QTableView;

namespace commprof::widgets {

// Panes with their stretch factors, in order.
QSplitter* makeSplitter(Qt::Orientation orientation,
                        std::initializer_list<std::pair<QWidget*, int>> panes, QWidget* parent);
QWidget* filteredTable(QLineEdit* filter, QTableView* table, QWidget* parent);

} // namespace commprof::widgets
