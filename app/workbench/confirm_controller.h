// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The What if page's "Confirm on this job": the page says which setting to confirm, this finds
// the `commprof record` folder of the job shown, starts `commprof confirm` on it in the
// background (runner::RecordJob) and hands its progress and result back to the page. The page
// never owns the job; a folder that `record` did not make is offered no confirmation, with why.

#include "analysis/confirmation.h"
#include "analysis/ddp_job.h"

#include <QObject>
#include <QString>

#include <memory>

namespace commprof::runner {
class RecordJob;
}
namespace commprof::widgets {
class WhatIfView;
}

namespace commprof::workbench {

class ConfirmController : public QObject {
    Q_OBJECT
public:
    explicit ConfirmController(widgets::WhatIfView* page, QObject* parent = nullptr);

    runner::RecordJob* job() const { return job_; }
    // Alternations per confirmation; 0 (the default): `commprof confirm`'s own default.
    void setRounds(int rounds) { rounds_ = rounds; }

    // The job the page shows: its folder, when `commprof record` made it, can be confirmed on.
    void setJob(const std::shared_ptr<const analysis::DdpJobAnalysis>& job);
    void clear(); // no job shown

    // The folder a job's files came from: its parameters file's, else its first trace's.
    static QString folderOf(const analysis::DdpJob& job);

private:
    void start(const analysis::Setting& candidate);

    widgets::WhatIfView* page_;
    runner::RecordJob* job_;
    QString recordDir_; // of the job shown; empty: none
    int rounds_ = 0;
};

} // namespace commprof::workbench
