// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// File > Record a job...: a user's own DDP training command, the steps to trace and the folder
// to write, run by `commprof record` in the background (runner::RecordJob) with its progress and
// a Cancel; when the record succeeds it says so with the folder, for the main window to open on
// the What if page. The dialog only gathers the request and shows the job's progress.

#include <QDialog>

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace commprof::runner {
class RecordJob;
}

namespace commprof::widgets {

class RecordDialog : public QDialog {
    Q_OBJECT
public:
    explicit RecordDialog(const QString& folder, QWidget* parent = nullptr);

    QLineEdit* commandField() const { return command_; }
    QLineEdit* folderField() const { return folder_; }
    QSpinBox* stepsField() const { return steps_; }
    QSpinBox* skipField() const { return skip_; }
    QSpinBox* nprocField() const { return nproc_; }
    QPushButton* recordButton() const { return record_; }
    QPushButton* cancelButton() const { return cancel_; }
    runner::RecordJob* job() const { return job_; }

    void start();

signals:
    void recorded(const QString& folder);

protected:
    void reject() override; // Cancel or Escape: ends a running job first

private:
    void setRunning(bool running);

    QLineEdit* command_;
    QLineEdit* folder_;
    QSpinBox* steps_;
    QSpinBox* skip_;
    QSpinBox* nproc_;
    QProgressBar* progress_;
    QLabel* status_;
    QPlainTextEdit* log_;
    QPushButton* record_;
    QPushButton* cancel_;
    runner::RecordJob* job_;
};

} // namespace commprof::widgets
