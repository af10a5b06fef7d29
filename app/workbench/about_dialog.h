// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Help > About: the versions of commprof, of the libtorch the rank worker was built with (asked
// of `commprof-rank --version --json`, off the GUI thread) and of Qt.

#include <QDialog>
#include <QLabel>

namespace commprof::workbench {

class AboutDialog : public QDialog {
    Q_OBJECT
public:
    explicit AboutDialog(QWidget* parent = nullptr);
    QString versionsText() const { return versions_->text(); }

signals:
    void rankVersionKnown();

private:
    void showVersions(const QString& libtorch);
    QLabel* versions_;
};

} // namespace commprof::workbench
