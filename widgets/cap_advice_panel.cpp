// SPDX-License-Identifier: GPL-3.0-or-later
#include "cap_advice_panel.h"

#include "analysis/cap_advice.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace commprof::widgets {

CapAdvicePanel::CapAdvicePanel(QWidget* parent)
    : QWidget(parent), layout_(new QVBoxLayout(this)), empty_(new QLabel(this)) {
    setObjectName("capAdvice");
    layout_->setContentsMargins(4, 2, 4, 2);
    layout_->setSpacing(2);
    empty_->setText("No recommendation: no cap study in these results");
    layout_->addWidget(empty_);
}

QString CapAdvicePanel::lineAt(int row) const {
    return rows_[std::size_t(row)].line->text();
}

void CapAdvicePanel::clear() {
    for (Row& r : rows_) {
        r.line->parentWidget()->deleteLater();
    }
    rows_.clear();
}

void CapAdvicePanel::setGroups(const std::vector<analysis::CapGroup>& groups) {
    clear();
    for (const analysis::CapGroup& g : groups) {
        if (g.hook == "local") {
            continue; // it sends nothing: no cap to advise
        }
        auto* box = new QWidget(this);
        auto* h = new QHBoxLayout(box);
        h->setContentsMargins(0, 0, 0, 0);
        Row r;
        r.group = g;
        r.line = new QLabel(box);
        r.line->setWordWrap(true);
        r.line->setTextInteractionFlags(Qt::TextSelectableByMouse);
        r.current = new QComboBox(box);
        r.current->setToolTip("The bucket cap you run at now, which the saving is against");
        r.apply = new QPushButton("Apply to matrix", box);
        r.apply->setToolTip("Set the matrix's bucket_cap_mb (in defaults) to the recommended cap "
                            "(Edit > Undo in the designer takes it back)");
        for (const analysis::CapCandidate& c : g.candidates) {
            r.current->addItem(QString("now %1 MiB").arg(c.capMb, 0, 'g', 6), c.capMb);
            if (g.advice.currentCapMb && c.capMb == *g.advice.currentCapMb) {
                r.current->setCurrentIndex(r.current->count() - 1);
            }
        }
        r.current->setVisible(r.current->count() > 0);
        h->addWidget(r.line, 1);
        h->addWidget(r.current);
        h->addWidget(r.apply);
        layout_->addWidget(box);
        const int index = int(rows_.size());
        connect(r.current, &QComboBox::activated, this, [this, index] {
            Row& row = rows_[std::size_t(index)];
            analysis::applyAdvice(row.group, row.current->currentData().toDouble(), "named");
            showRow(row);
        });
        connect(r.apply, &QPushButton::clicked, this, [this, index] {
            const Row& row = rows_[std::size_t(index)];
            if (row.group.recommendedCapMb) {
                emit applyCapRequested(*row.group.recommendedCapMb);
            }
        });
        rows_.push_back(r);
        showRow(rows_.back());
    }
    empty_->setVisible(rows_.empty());
}

void CapAdvicePanel::showRow(Row& row) {
    const analysis::CapGroup& g = row.group;
    row.line->setText(analysis::groupLabel(g) + ": " + analysis::actionLine(g));
    // Applying a cap the matrix already runs at changes nothing.
    row.apply->setEnabled(g.recommendedCapMb && g.advice.currentCapMb &&
                          *g.recommendedCapMb != *g.advice.currentCapMb);
}

} // namespace commprof::widgets
