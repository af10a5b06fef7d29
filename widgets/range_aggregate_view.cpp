// SPDX-License-Identifier: GPL-3.0-or-later
#include "range_aggregate_view.h"

#include "report/series_names.h"
#include "timeline/ruler.h"

#include <QHeaderView>
#include <QLabel>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>

namespace commprof::widgets {
namespace {

QStandardItem* cell(const QString& text, const QVariant& sortKey, bool number) {
    auto* item = new QStandardItem(text);
    item->setData(sortKey, RangeAggregateView::kSortRole);
    item->setEditable(false);
    if (number) {
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    }
    return item;
}

} // namespace

RangeAggregateView::RangeAggregateView(QWidget* parent) : QWidget(parent) {
    header_ = new QLabel(this);
    header_->setWordWrap(true);
    header_->setStyleSheet("color:#555");
    model_ = new QStandardItemModel(0, ColumnCount, this);
    model_->setHorizontalHeaderLabels({"name", "count", "total", "self", "class"});
    model_->setSortRole(kSortRole);
    table_ = new QTableView(this);
    table_->setModel(model_);
    table_->setSortingEnabled(true);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setSectionResizeMode(Name, QHeaderView::Stretch);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 2, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(header_);
    layout->addWidget(table_, 1);
    table_->sortByColumn(Total, Qt::DescendingOrder); // the heaviest first, as hotspot
    clear();
}

QString RangeAggregateView::headerText() const {
    return header_->text();
}

void RangeAggregateView::clear() {
    model_->removeRows(0, model_->rowCount());
    header_->setText("Shift+drag across the timeline to sum the slices of a range by name.");
}

void RangeAggregateView::showRange(double fromUs, double toUs, int ranks,
                                   const std::vector<timeline::NameAggregate>& rows) {
    using timeline::formatDuration;
    table_->setSortingEnabled(false); // rows go in as given, then the user's sort applies
    model_->removeRows(0, model_->rowCount());
    std::size_t slices = 0;
    for (const auto& a : rows) {
        model_->appendRow({cell(a.name, a.name, false),
                           cell(QString("%L1").arg(a.count), qulonglong(a.count), true),
                           cell(formatDuration(a.totalUs), a.totalUs, true),
                           cell(formatDuration(a.selfUs), a.selfUs, true),
                           cell(trace::toString(a.cls), QString(trace::toString(a.cls)), false)});
        slices += a.count;
    }
    header_->setText(QString("Range %1 on %2: %L3 slices, %L4 names. Total and self "
                             "are clipped to the range: a slice that crosses its edge counts "
                             "only its part inside.")
                         .arg(formatDuration(toUs - fromUs), report::ranksText(ranks))
                         .arg(slices)
                         .arg(rows.size()));
    table_->setSortingEnabled(true);
}

} // namespace commprof::widgets
