#include "step_table_view.h"

#include <QHeaderView>

namespace commprof::widgets {

StepTableView::StepTableView(QWidget* parent) : QTableView(parent) {
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setAlternatingRowColors(true);
    verticalHeader()->hide();
    horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
}

} // namespace commprof::widgets
