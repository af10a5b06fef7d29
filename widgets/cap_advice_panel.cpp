// SPDX-License-Identifier: GPL-3.0-or-later
#include "cap_advice_panel.h"

#include "analysis/cap_advice.h"
#include "report/recommendation_text.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

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

std::vector<int> CapAdvicePanel::rowEnds() const {
    // Each row's height for the panel's width, as the layout gives it (a wrapped line is taller
    // in a narrow panel): known before the rows are laid out, and the same after.
    const QMargins m = layout_->contentsMargins();
    const int inside = width() - m.left() - m.right();
    std::vector<int> ends;
    int y = m.top();
    for (const Row& r : rows_) {
        const QWidget* box = r.line->parentWidget();
        y += (ends.empty() ? 0 : layout_->spacing()) +
             (box->hasHeightForWidth() ? box->heightForWidth(inside) : box->sizeHint().height());
        ends.push_back(y + m.bottom());
    }
    return ends;
}

int CapAdvicePanel::firstRowsHeight(int n) const {
    const std::vector<int> ends = rowEnds();
    return ends.empty() || n < 1 ? 0 : ends[std::size_t(std::min(n, rows()) - 1)];
}

int CapAdvicePanel::wholeRowsHeight(int within) const {
    const std::vector<int> ends = rowEnds(); // ascending
    const auto past = std::ranges::upper_bound(ends, within);
    return past == ends.begin() ? 0 : *std::prev(past);
}

void CapAdvicePanel::clear() {
    for (Row& r : rows_) {
        r.line->parentWidget()->deleteLater();
    }
    rows_.clear();
}

namespace {

// Where a group's line goes: a cap to set whose saving is beyond its uncertainty first, then the
// other groups that communicate, then one rank's (which moves nothing a cap could change).
int actionOrder(const analysis::CapGroup& g) {
    const analysis::CapAdvice& a = g.advice;
    const bool actionable = g.worldSize > 1 && g.recommendedCapMb && a.currentCapMb &&
                            *g.recommendedCapMb != *a.currentCapMb && a.savingMs &&
                            a.uncertaintyMs && std::abs(*a.savingMs) > *a.uncertaintyMs;
    return actionable ? 0 : g.worldSize > 1 ? 1 : 2;
}

} // namespace

void CapAdvicePanel::setGroups(const std::vector<analysis::CapGroup>& unordered) {
    clear();
    std::vector<analysis::CapGroup> groups = unordered;
    std::ranges::stable_sort(groups, {}, actionOrder);
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
        r.apply->setToolTip(QString("Set bucket_cap_mb in the matrix's entry of %1 to the "
                                    "recommended cap; the other models keep theirs (Edit > Undo "
                                    "takes it back)")
                                .arg(g.model));
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
                emit applyCapRequested(row.group);
            }
        });
        rows_.push_back(r);
        showRow(rows_.back());
    }
    empty_->setVisible(rows_.empty());
}

void CapAdvicePanel::showRow(Row& row) {
    const analysis::CapGroup& g = row.group;
    row.line->setText(report::groupLabel(g) + ": " + report::actionLine(g));
    // Applying a cap the matrix already runs at changes nothing.
    row.apply->setEnabled(g.recommendedCapMb && g.advice.currentCapMb &&
                          *g.recommendedCapMb != *g.advice.currentCapMb);
}

} // namespace commprof::widgets
