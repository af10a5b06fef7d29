// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// In the status bar: what runs in the background right now, its progress, and a Cancel
// button. Every job tracker of the window is watched; the most recently started job is shown.

#include <QLabel>
#include <QWidget>

class QProgressBar;
class QToolButton;

namespace commprof::jobs {
class JobTracker;
}

namespace commprof::widgets {

class JobStatus : public QWidget {
    Q_OBJECT
public:
    explicit JobStatus(QWidget* parent = nullptr);
    void watch(jobs::JobTracker* tracker);
    QString text() const { return isVisible() ? label_->toolTip() : QString(); }

private:
    static constexpr int kMaxLabelPx = 360;
    void refresh();
    void setLabel(const QString& text);
    QList<jobs::JobTracker*> trackers_; // most recently started last
    jobs::JobTracker* shown_ = nullptr;
    QLabel* label_;
    QProgressBar* bar_;
    QToolButton* cancel_;
};

} // namespace commprof::widgets
