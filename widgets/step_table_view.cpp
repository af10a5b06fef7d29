// SPDX-License-Identifier: GPL-3.0-or-later
#include "step_table_view.h"

#include <QHeaderView>

namespace commprof::widgets {

StepTableView::StepTableView(QWidget* parent) : QTableView(parent) {
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setSelectionMode(QAbstractItemView::SingleSelection);
    setAlternatingRowColors(true);
    verticalHeader()->hide();
    horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
}

int StepTableView::selectedStep() const {
    if (!model() || !selectionModel()) {
        return -1;
    }
    const auto rows = selectionModel()->selectedRows();
    // The last row is the totals.
    return rows.isEmpty() || rows.first().row() >= model()->rowCount() - 1 ? -1
                                                                           : rows.first().row();
}

void StepTableView::selectStep(int stepIndex) {
    if (!model() || !selectionModel()) {
        return;
    }
    quiet_ = true;
    if (stepIndex < 0 || stepIndex >= model()->rowCount() - 1) {
        clearSelection();
    } else {
        selectRow(stepIndex);
        scrollTo(model()->index(stepIndex, 0));
    }
    quiet_ = false;
}

void StepTableView::selectionChanged(const QItemSelection& selected,
                                     const QItemSelection& deselected) {
    QTableView::selectionChanged(selected, deselected);
    if (quiet_ || selected.isEmpty()) {
        return;
    }
    emit stepChosen(selectedStep());
}

} // namespace commprof::widgets
