// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Probe panel: the verdict, and every finding of the probe in a table.

#include <QWidget>

class QLabel;
class QTableView;
class QPushButton;

namespace commprof::models {
class ProbeModel;
}

namespace commprof::widgets {

class ProbeView : public QWidget {
    Q_OBJECT
public:
    explicit ProbeView(QWidget* parent = nullptr);
    void setModel(models::ProbeModel* model);
    void setBusy(bool busy);
    QString verdictText() const;

signals:
    void probeRequested();

private:
    void refreshVerdict();
    QLabel* verdict_;
    QPushButton* run_;
    QTableView* table_;
    models::ProbeModel* model_ = nullptr;
};

} // namespace commprof::widgets
