// SPDX-License-Identifier: GPL-3.0-or-later
#include "layout_helpers.h"

#include <QHeaderView>
#include <QLineEdit>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

namespace commprof::widgets {

QSplitter* makeSplitter(Qt::Orientation orientation,
                        std::initializer_list<std::pair<QWidget*, int>> panes, QWidget* parent) {
    auto* split = new QSplitter(orientation, parent);
    split->setChildrenCollapsible(false);
    int i = 0;
    for (const auto& [pane, stretch] : panes) {
        split->addWidget(pane);
        split->setStretchFactor(i++, stretch);
    }
    return split;
}

QWidget* filteredTable(QLineEdit* filter, QTableView* table, QWidget* parent) {
    auto* box = new QWidget(parent);
    auto* layout = bareLayout<QVBoxLayout>(box, 2);
    layout->addWidget(filter);
    layout->addWidget(table, 1);
    return box;
}

void makeRowTable(QTableView& table) {
    table.verticalHeader()->hide();
    table.verticalHeader()->setDefaultSectionSize(table.fontMetrics().height() + 6);
    table.setSelectionBehavior(QAbstractItemView::SelectRows);
    table.setTextElideMode(Qt::ElideMiddle);
}

QToolButton* makeFold(const QString& text, QWidget* content, QWidget* parent) {
    auto* fold = new QToolButton(parent);
    fold->setText(text);
    fold->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    fold->setArrowType(Qt::RightArrow);
    fold->setCheckable(true);
    fold->setAutoRaise(true);
    content->setVisible(false);
    QObject::connect(fold, &QToolButton::toggled, content, [fold, content](bool open) {
        fold->setArrowType(open ? Qt::DownArrow : Qt::RightArrow);
        content->setVisible(open);
    });
    return fold;
}

} // namespace commprof::widgets
