// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The determinism view: the verdict, each rank's first divergence, both streams side by side
// around the selected rank's first divergence, and the discriminator table.

#include "determinism/divergence.h"

#include <QLabel>
#include <QWidget>

class QTableView;

namespace commprof::models {
class RankVerdictModel;
class SideBySideModel;
class DiscriminatorModel;
} // namespace commprof::models

namespace commprof::widgets {

class DiffView : public QWidget {
    Q_OBJECT
public:
    explicit DiffView(QWidget* parent = nullptr);
    // The report and both runs' streams, as loaded off the GUI thread.
    void setRuns(const determinism::DiffReport& report, const determinism::LoadedRuns& runs);
    void selectRank(int row);
    QString summaryText() const { return summary_->text(); }
    models::SideBySideModel* sideBySide() const { return sideBySide_; }
    models::RankVerdictModel* verdicts() const { return verdicts_; }
    models::DiscriminatorModel* discriminators() const { return discriminators_; }

private:
    QLabel* summary_;
    QTableView* ranksView_;
    QTableView* sideView_;
    QTableView* discView_;
    models::RankVerdictModel* verdicts_;
    models::SideBySideModel* sideBySide_;
    models::DiscriminatorModel* discriminators_;
    determinism::DiffReport report_;
    determinism::LoadedRuns runs_;
};

} // namespace commprof::widgets
