// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Tints a table row whose model says so through a boolean role: a flagged results cell, an
// infeasible planned cell. Models stay in core (no colours there); the tint is the view's.

#include <QStyledItemDelegate>

namespace commprof::widgets {

class FlaggedRowDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    FlaggedRowDelegate(int flagRole, QObject* parent);

protected:
    void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override;

private:
    int flagRole_;
};

} // namespace commprof::widgets
