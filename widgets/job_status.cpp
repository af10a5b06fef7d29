// SPDX-License-Identifier: GPL-3.0-or-later
#include "job_status.h"

#include "jobs/job_tracker.h"

#include <QHBoxLayout>
#include <QProgressBar>
#include <QStyle>
#include <QToolButton>

namespace commprof::widgets {

JobStatus::JobStatus(QWidget* parent) : QWidget(parent) {
    label_ = new QLabel(this);
    bar_ = new QProgressBar(this);
    bar_->setMaximumWidth(160);
    bar_->setMaximumHeight(fontMetrics().height() + 4);
    bar_->setTextVisible(false);
    cancel_ = new QToolButton(this);
    cancel_->setText("Cancel");
    cancel_->setAutoRaise(true);
    cancel_->setIcon(style()->standardIcon(QStyle::SP_DialogCancelButton));
    cancel_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    connect(cancel_, &QToolButton::clicked, this, [this] {
        if (shown_) {
            shown_->cancel();
        }
    });
    auto* row = new QHBoxLayout(this);
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(label_);
    row->addWidget(bar_);
    row->addWidget(cancel_);
    setVisible(false);
}

void JobStatus::watch(jobs::JobTracker* tracker) {
    connect(tracker, &jobs::JobTracker::started, this, [this, tracker] {
        trackers_.removeAll(tracker);
        trackers_ << tracker;
        bar_->setRange(0, 0); // busy until the job says how far it is
        refresh();
    });
    connect(tracker, &jobs::JobTracker::finished, this, &JobStatus::refresh);
    connect(tracker, &jobs::JobTracker::progressed, this,
            [this, tracker](int done, int total, const QString& what) {
                if (tracker != shown_) {
                    return;
                }
                bar_->setRange(0, std::max(0, total));
                bar_->setValue(done);
                setLabel(what.isEmpty() ? tracker->label() : tracker->label() + ": " + what);
            });
    connect(tracker, &QObject::destroyed, this, [this, tracker] {
        trackers_.removeAll(tracker);
        refresh(); // shows another, never the one gone
    });
}

void JobStatus::refresh() {
    const auto it = std::find_if(trackers_.rbegin(), trackers_.rend(),
                                 [](const jobs::JobTracker* t) { return t->running(); });
    shown_ = it == trackers_.rend() ? nullptr : *it;
    if (shown_) {
        setLabel(shown_->label() + "...");
    }
    setVisible(shown_ != nullptr);
}

void JobStatus::setLabel(const QString& text) {
    // A long path must not widen the window past a small screen: shortened, whole in the tip.
    label_->setToolTip(text);
    label_->setText(label_->fontMetrics().elidedText(text, Qt::ElideMiddle, kMaxLabelPx));
}

} // namespace commprof::widgets
