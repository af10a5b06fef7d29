// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The arrangements every view here is built from: panes in a splitter that never collapses one
// to nothing, a table of rows to pick from, with its filter line above it, and a fold for what
// a page keeps out of the way until asked for.

#include <QSplitter>

#include <initializer_list>
#include <utility>

class QLineEdit;
class QTableView;
class QToolButton;

namespace commprof::widgets {

// Panes with their stretch factors, in order.
QSplitter* makeSplitter(Qt::Orientation orientation,
                        std::initializer_list<std::pair<QWidget*, int>> panes, QWidget* parent);
QWidget* filteredTable(QLineEdit* filter, QTableView* table, QWidget* parent);
// A table whose rows are things to pick (cells, groups): no row numbers, rows a line of text
// high, a click picks the whole row, and long text loses its middle (an id keeps its model and
// its repeat).
void makeRowTable(QTableView& table);
// A layout of `box` with no margin around what it holds, `spacing` apart (-1: the style's).
template <class Layout> Layout* bareLayout(QWidget* box, int spacing = -1) {
    auto* layout = new Layout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    if (spacing >= 0) {
        layout->setSpacing(spacing);
    }
    return layout;
}
// A flat button with an arrow that shows `content` while it is checked (hidden at first).
QToolButton* makeFold(const QString& text, QWidget* content, QWidget* parent);

} // namespace commprof::widgets
