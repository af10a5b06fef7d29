// SPDX-License-Identifier: GPL-3.0-or-later
#include "diff_view.h"

#include "models/divergence_models.h"

#include <QHeaderView>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace commprof::widgets {
namespace {

QTableView* table(QWidget* parent, QAbstractItemModel* model) {
    auto* t = new QTableView(parent);
    t->setModel(model);
    t->verticalHeader()->hide();
    // Every column as wide as its header and its cells, whenever either changes (sized once,
    // before the view was shown, "first differing record" read "st differing reco").
    t->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    t->horizontalHeader()->setStretchLastSection(true);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setSelectionMode(QAbstractItemView::SingleSelection);
    return t;
}

} // namespace

DiffView::DiffView(QWidget* parent) : QWidget(parent) {
    verdicts_ = new models::RankVerdictModel(this);
    sideBySide_ = new models::SideBySideModel(this);
    discriminators_ = new models::DiscriminatorModel(this);
    summary_ =
        new QLabel("Compare two fingerprinted runs (File > Compare fingerprinted runs)", this);
    summary_->setWordWrap(true);
    ranksView_ = table(this, verdicts_);
    sideView_ = table(this, sideBySide_);
    discView_ = table(this, discriminators_);
    connect(ranksView_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { selectRank(current.row()); });
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(ranksView_);
    split->addWidget(sideView_);
    split->addWidget(discView_);
    split->setStretchFactor(1, 3);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(summary_);
    layout->addWidget(split, 1);
}

void DiffView::setRuns(const determinism::DiffReport& report, const determinism::LoadedRuns& runs) {
    report_ = report;
    runs_ = runs;
    summary_->setText(QString("<b>%1</b>: %2").arg(report.pattern, report.summary.toHtmlEscaped()));
    verdicts_->setReport(report);
    discriminators_->setReport(report);
    ranksView_->resizeColumnsToContents();
    discView_->resizeColumnsToContents();
    selectRank(0);
}

void DiffView::selectRank(int row) {
    if (row < 0 || row >= int(report_.ranks.size())) {
        return;
    }
    const auto& d = report_.ranks[std::size_t(row)];
    if (d.first && runs_.a.contains(d.rank) && runs_.b.contains(d.rank)) {
        sideBySide_->setStreams(runs_.a[d.rank], runs_.b[d.rank], d.first->key());
        sideView_->resizeColumnsToContents();
        if (sideBySide_->focusRow() >= 0) {
            sideView_->selectRow(sideBySide_->focusRow());
            sideView_->scrollTo(sideBySide_->index(sideBySide_->focusRow(), 0),
                                QAbstractItemView::PositionAtCenter);
        }
    } else {
        sideBySide_->setStreams({}, {}, {});
    }
}

} // namespace commprof::widgets
