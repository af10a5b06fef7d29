// SPDX-License-Identifier: GPL-3.0-or-later
#include "flagged_row_delegate.h"

namespace commprof::widgets {

FlaggedRowDelegate::FlaggedRowDelegate(int flagRole, QObject* parent)
    : QStyledItemDelegate(parent), flagRole_(flagRole) {}

void FlaggedRowDelegate::initStyleOption(QStyleOptionViewItem* option,
                                         const QModelIndex& index) const {
    QStyledItemDelegate::initStyleOption(option, index);
    if (index.data(flagRole_).toBool()) {
        option->backgroundBrush = QColor(255, 226, 226);
        option->palette.setColor(QPalette::Text, QColor(150, 20, 20));
    }
}

} // namespace commprof::widgets
