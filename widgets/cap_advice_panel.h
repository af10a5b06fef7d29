// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The top of the "Bucket cap study" page: per group of `commprof recommend`, the line a user
// acts on (analysis/cap_advice.h), the current cap to judge against (where the matrix ran a
// list of caps, the user names the one they run at) and "Apply to matrix", which asks for the
// recommended cap to become the matrix's bucket_cap_mb. Nothing for `hook: local`, which
// communicates nothing. It displays and forwards intent; the window makes the edit.

#include "analysis/recommendation.h"

#include <QWidget>

#include <vector>

class QComboBox;
class QLabel;
class QPushButton;
class QVBoxLayout;

namespace commprof::widgets {

class CapAdvicePanel : public QWidget {
    Q_OBJECT
public:
    explicit CapAdvicePanel(QWidget* parent = nullptr);
    void setGroups(const std::vector<analysis::CapGroup>& groups);

    int rows() const { return int(rows_.size()); }
    QString lineAt(int row) const;
    // The height of the first `n` rows (the most actionable lines) at the panel's width, margins
    // included; 0 without rows.
    int firstRowsHeight(int n) const;
    // The height that shows the rows ending within `within` px whole, down to the bottom margin;
    // 0 where not even the first does.
    int wholeRowsHeight(int within) const;
    QComboBox* currentCap(int row) const { return rows_[std::size_t(row)].current; }
    QPushButton* applyButton(int row) const { return rows_[std::size_t(row)].apply; }

signals:
    // The recommended cap, to become the bucket_cap_mb of the group's model entry.
    void applyCapRequested(const analysis::CapGroup& group);

private:
    struct Row {
        analysis::CapGroup group;
        QLabel* line = nullptr;
        QComboBox* current = nullptr;
        QPushButton* apply = nullptr;
    };
    void showRow(Row& row);
    void clear();
    // Where each row ends at the panel's width, the bottom margin included: both heights above
    // are measured by it, so that they agree before and after a layout.
    std::vector<int> rowEnds() const;
    std::vector<Row> rows_;
    QVBoxLayout* layout_;
    QLabel* empty_;
};

} // namespace commprof::widgets
