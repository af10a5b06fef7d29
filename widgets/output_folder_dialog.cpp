// SPDX-License-Identifier: GPL-3.0-or-later
#include "output_folder_dialog.h"

#include "results/results_folder.h"
#include "runner/matrix_runner.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QLineEdit>
#include <QPushButton>

namespace commprof::widgets {

OutputFolderDialog::OutputFolderDialog(const QString& dir,
                                       std::shared_ptr<const feasibility::Plan> plan,
                                       QWidget* parent)
    : QDialog(parent), plan_(std::move(plan)) {
    setWindowTitle("Write the run's results into");
    field_ = new QLineEdit(QDir::toNativeSeparators(dir), this);
    field_->setMinimumWidth(field_->fontMetrics().averageCharWidth() * 50);
    auto* browse = new QPushButton("&Browse...", this);
    note_ = new QLabel(this);
    note_->setWordWrap(true);
    note_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    buttons_ = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons_->button(QDialogButtonBox::Ok)->setText("C&hoose");
    buttons_->button(QDialogButtonBox::Cancel)->setText("&Cancel");
    auto* label = new QLabel("&Folder:", this);
    label->setBuddy(field_);
    auto* grid = new QGridLayout(this);
    grid->addWidget(label, 0, 0);
    grid->addWidget(field_, 0, 1);
    grid->addWidget(browse, 0, 2);
    grid->addWidget(note_, 1, 1, 1, 2);
    grid->addWidget(buttons_, 2, 0, 1, 3);
    grid->setColumnStretch(1, 1);
    connect(field_, &QLineEdit::textChanged, this, &OutputFolderDialog::check);
    connect(browse, &QPushButton::clicked, this, &OutputFolderDialog::browse);
    connect(buttons_, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
    check();
}

QString OutputFolderDialog::folder() const {
    const QString text = field_->text().trimmed();
    return text.isEmpty() ? QString()
                          : QDir::cleanPath(QDir(QDir::fromNativeSeparators(text)).absolutePath());
}

bool OutputFolderDialog::acceptable() const {
    return buttons_->button(QDialogButtonBox::Ok)->isEnabled();
}

void OutputFolderDialog::check() {
    const QString dir = folder();
    const QString refusal = dir.isEmpty() ? QString("Type or browse to a folder.")
                                          : runner::folderRefusal(dir, plan_.get());
    const QFileInfo info(dir);
    const bool ok = refusal.isEmpty();
    if (!ok) {
        note_->setText(refusal);
    } else if (!info.exists()) {
        note_->setText("A new folder: the run makes it.");
    } else if (results::checkResultsFolder(dir).ok) {
        note_->setText(QString("A results folder%1: the run continues it, and the cells "
                               "already complete are kept.")
                           .arg(plan_ ? " of this matrix" : ""));
    } else {
        note_->setText("An empty folder: the run writes its results here.");
    }
    QPalette p = palette();
    if (!ok) {
        p.setColor(QPalette::WindowText, QColor(150, 20, 20));
    }
    note_->setPalette(p);
    buttons_->button(QDialogButtonBox::Ok)->setEnabled(ok);
}

void OutputFolderDialog::browse() {
    // From the typed folder, or the nearest folder above it that exists.
    QString start = folder();
    while (!start.isEmpty() && !QFileInfo(start).isDir() && start != QDir::rootPath()) {
        start = QFileInfo(start).path();
    }
    const QString dir = QFileDialog::getExistingDirectory(this, windowTitle(), start);
    if (!dir.isEmpty()) {
        field_->setText(QDir::toNativeSeparators(dir));
    }
}

} // namespace commprof::widgets
