// SPDX-License-Identifier: GPL-3.0-or-later
#include "probe_view.h"

#include "models/probe_model.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

namespace commprof::widgets {

ProbeView::ProbeView(QWidget* parent) : QWidget(parent) {
    verdict_ = new QLabel("not probed yet", this);
    QFont f = verdict_->font();
    f.setBold(true);
    f.setPointSizeF(f.pointSizeF() * 1.3);
    verdict_->setFont(f);
    verdict_->setWordWrap(true); // a long verdict wraps rather than push Run probe off screen
    run_ = new QPushButton("Run probe", this);
    connect(run_, &QPushButton::clicked, this, &ProbeView::probeRequested);
    table_ = new QTableView(this);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setWordWrap(true);
    auto* top = new QHBoxLayout;
    top->addWidget(verdict_, 1);
    top->addWidget(run_);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(table_, 1);
}

void ProbeView::setModel(models::ProbeModel* model) {
    model_ = model;
    table_->setModel(model);
    connect(model, &QAbstractItemModel::modelReset, this, &ProbeView::refreshVerdict);
    refreshVerdict();
}

void ProbeView::setBusy(bool busy) {
    run_->setEnabled(!busy);
    if (busy) {
        verdict_->setText("probing...");
    }
}

QString ProbeView::verdictText() const {
    return verdict_->text();
}

void ProbeView::refreshVerdict() {
    if (!model_ || model_->rowCount() == 0) {
        return;
    }
    const QString v = model_->report().verdict();
    verdict_->setText(v);
    verdict_->setStyleSheet(v.startsWith("ISSUES") ? "color: #be1e1e"
                            : v == "READY"         ? "color: #1e823c"
                                                   : "color: #b46e00");
    table_->resizeColumnsToContents();
    table_->resizeRowsToContents();
}

} // namespace commprof::widgets
