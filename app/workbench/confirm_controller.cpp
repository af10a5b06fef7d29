// SPDX-License-Identifier: GPL-3.0-or-later
#include "confirm_controller.h"

#include "report/confirmation_text.h"
#include "runner/record_job.h"
#include "whatif_view.h"

#include <QFileInfo>

namespace commprof::workbench {

ConfirmController::ConfirmController(widgets::WhatIfView* page, QObject* parent)
    : QObject(parent), page_(page), job_(new runner::RecordJob(this)) {
    connect(page_, &widgets::WhatIfView::confirmRequested, this, &ConfirmController::start);
    connect(page_, &widgets::WhatIfView::confirmCancelRequested, job_, &runner::RecordJob::cancel);
    connect(job_, &runner::RecordJob::progress, this, [this](int, int, const QString& text) {
        if (job_->running()) {
            page_->setConfirmState(true, "Confirming on " + recordDir_ + ": " + text);
        }
    });
    connect(job_, &runner::RecordJob::confirmed, this,
            [this](bool ok, int exitCode, const std::optional<analysis::Confirmation>& result,
                   const QString& message) {
                page_->setConfirmState(
                    false, ok && result ? "Confirmed on the job:\n" + report::describe(*result)
                           : message == "Cancelled"
                               ? QString("The confirmation was cancelled")
                               : QString("The confirmation ended without a result (exit code "
                                         "%1): %2")
                                     .arg(exitCode)
                                     .arg(message));
            });
}

QString ConfirmController::folderOf(const analysis::DdpJob& job) {
    if (!job.paramsPath.isEmpty()) {
        return QFileInfo(job.paramsPath).absolutePath();
    }
    if (!job.steps.empty()) {
        return QFileInfo(QString::fromStdString(job.steps.front().source)).absolutePath();
    }
    return {};
}

void ConfirmController::setJob(const std::shared_ptr<const analysis::DdpJobAnalysis>& job) {
    recordDir_.clear();
    if (!job) {
        clear();
        return;
    }
    const QString dir = folderOf(job->job);
    QString why;
    // Whether `record` made the folder is what confirmRequestFor itself checks.
    if (!dir.isEmpty() && runner::RecordJob::confirmRequestFor(dir, 25, {}, &why)) {
        recordDir_ = dir;
        page_->setConfirmSource(true, {});
        return;
    }
    page_->setConfirmSource(false, "Only a folder made by commprof record (File > Record a job) "
                                   "can be confirmed on: " +
                                       (dir.isEmpty() ? QString("no folder") : why));
}

void ConfirmController::clear() {
    recordDir_.clear();
    page_->setConfirmSource(false, "Open a folder made by commprof record to confirm on it");
}

void ConfirmController::start(const analysis::Setting& candidate) {
    QString error;
    std::optional<runner::ConfirmRequest> request =
        recordDir_.isEmpty() ? std::nullopt
                             : runner::RecordJob::confirmRequestFor(
                                   recordDir_, candidate.bucketCapMb, candidate.hook, &error);
    if (request && rounds_ > 0) {
        request->rounds = rounds_;
    }
    if (!request || !job_->startConfirm(*request, &error)) {
        page_->setConfirmState(false, "The confirmation could not start: " +
                                          (error.isEmpty() ? QString("no record folder") : error));
        return;
    }
    page_->setConfirmState(true,
                           QString("Confirming bucket_cap_mb %1, hook %2 on %3 (%4 rounds)...")
                               .arg(candidate.bucketCapMb)
                               .arg(candidate.hook)
                               .arg(recordDir_)
                               .arg(request->rounds));
}

} // namespace commprof::workbench
