// SPDX-License-Identifier: GPL-3.0-or-later
#include "record_dialog.h"

#include "runner/record_job.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

namespace commprof::widgets {

RecordDialog::RecordDialog(const QString& folder, QWidget* parent)
    : QDialog(parent), job_(new runner::RecordJob(this)) {
    setWindowTitle("Record a job");
    command_ = new QLineEdit(this);
    command_->setPlaceholderText("python3 train.py --epochs 1");
    command_->setToolTip("Your training command, unmodified: a Python script or a launcher "
                         "(torchrun, srun). Nothing of it is edited.");
    folder_ = new QLineEdit(folder, this);
    auto* browse = new QToolButton(this);
    browse->setText("...");
    connect(browse, &QToolButton::clicked, this, [this] {
        const QString d =
            QFileDialog::getExistingDirectory(this, "Folder for the record", folder_->text());
        if (!d.isEmpty()) {
            folder_->setText(d);
        }
    });
    auto* folderRow = new QHBoxLayout;
    folderRow->addWidget(folder_, 1);
    folderRow->addWidget(browse);
    steps_ = new QSpinBox(this);
    steps_->setRange(1, 10000);
    steps_->setValue(5);
    skip_ = new QSpinBox(this);
    skip_->setRange(2, 1000000);
    skip_->setValue(5);
    skip_->setToolTip("Steps left out first: DDP rebuilds its buckets in step 1");
    nproc_ = new QSpinBox(this);
    nproc_->setRange(0, 1024);
    nproc_->setSpecialValueText("the command starts them");
    nproc_->setValue(2);
    auto* form = new QFormLayout;
    form->addRow("&Command:", command_);
    form->addRow("&Folder (new or empty):", folderRow);
    form->addRow("Steps to &trace:", steps_);
    form->addRow("Steps to &skip first:", skip_);
    form->addRow("&Ranks to start:", nproc_);
    progress_ = new QProgressBar(this);
    progress_->setRange(0, 1);
    progress_->setValue(0);
    status_ = new QLabel("Ready", this);
    status_->setWordWrap(true);
    log_ = new QPlainTextEdit(this);
    log_->setReadOnly(true);
    log_->setMaximumBlockCount(2000);
    auto* buttons = new QDialogButtonBox(this);
    record_ = buttons->addButton("&Record", QDialogButtonBox::AcceptRole);
    cancel_ = buttons->addButton(QDialogButtonBox::Cancel);
    connect(record_, &QPushButton::clicked, this, &RecordDialog::start);
    connect(cancel_, &QPushButton::clicked, this, &RecordDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(progress_);
    layout->addWidget(status_);
    layout->addWidget(log_, 1);
    layout->addWidget(buttons);

    connect(job_, &runner::RecordJob::progress, this,
            [this](int step, int last, const QString& text) {
                progress_->setRange(0, std::max(last, 0)); // 0..0: busy
                progress_->setValue(std::min(step, last));
                status_->setText(text);
                log_->setPlainText(job_->output());
            });
    connect(job_, &runner::RecordJob::recorded, this,
            [this](bool ok, int exitCode, const QString& dir, const QString& message) {
                setRunning(false);
                log_->setPlainText(job_->output());
                if (ok) {
                    status_->setText("Recorded into " + QDir::toNativeSeparators(dir));
                    emit recorded(dir);
                    accept();
                } else {
                    status_->setText(
                        QString("Not recorded (exit %1): %2").arg(exitCode).arg(message));
                }
            });
}

void RecordDialog::start() {
    const runner::RecordRequest r{.command = command_->text(),
                                  .outDir = folder_->text(),
                                  .skip = skip_->value(),
                                  .steps = steps_->value(),
                                  .nproc = nproc_->value()};
    QString error;
    if (!job_->startRecord(r, &error)) {
        status_->setText(error);
        return;
    }
    setRunning(true);
}

void RecordDialog::reject() {
    if (job_->running()) {
        status_->setText("Cancelling: ending the job's ranks");
        job_->cancel();
        return; // closes once the job said it ended (setRunning(false))
    }
    QDialog::reject();
}

void RecordDialog::setRunning(bool running) {
    for (QWidget* w :
         std::initializer_list<QWidget*>{record_, command_, folder_, steps_, skip_, nproc_}) {
        w->setEnabled(!running);
    }
    progress_->setRange(0, running ? 0 : 1); // 0..0: busy
}

} // namespace commprof::widgets
