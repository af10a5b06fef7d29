#pragma once
// A read-only table of per-step trace figures.

#include <QTableView>

namespace commprof::widgets {

class StepTableView : public QTableView {
    Q_OBJECT
public:
    explicit StepTableView(QWidget* parent = nullptr);
};

} // namespace commprof::widgets
