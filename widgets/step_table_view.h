// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The per-step trace figures beside the timeline. Choosing a row asks the timeline to zoom to
// that step (the totals row: to everything); the timeline's step bands select rows back.

#include <QTableView>

namespace commprof::widgets {

class StepTableView : public QTableView {
    Q_OBJECT
public:
    explicit StepTableView(QWidget* parent = nullptr);
    // Selects a step's row without emitting stepChosen; -1 clears.
    void selectStep(int stepIndex);
    int selectedStep() const; // -1: none or the totals row

signals:
    void stepChosen(int stepIndex); // -1: the totals row

protected:
    void selectionChanged(const QItemSelection& selected,
                          const QItemSelection& deselected) override;

private:
    bool quiet_ = false;
};

} // namespace commprof::widgets
