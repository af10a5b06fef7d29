// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Where a run writes: a path typed or browsed to, a folder that does not exist yet included (the
// run makes it). Beside the field it says at once what the run would do there, or why the runner
// would refuse it (runner::folderRefusal, the runner's own check), and Choose is offered only for
// a folder the run may use.

#include "feasibility/plan.h"

#include <QDialog>
#include <QLabel>

#include <memory>

class QDialogButtonBox;
class QLineEdit;

namespace commprof::widgets {

class OutputFolderDialog : public QDialog {
    Q_OBJECT
public:
    // `plan` (may be null) is what the run would run: a folder of another matrix is refused.
    OutputFolderDialog(const QString& dir, std::shared_ptr<const feasibility::Plan> plan,
                       QWidget* parent = nullptr);
    QString folder() const;
    QLineEdit* field() const { return field_; }
    QString note() const { return note_->text(); }
    bool acceptable() const; // Choose is enabled

private:
    void check();
    void browse();

    std::shared_ptr<const feasibility::Plan> plan_;
    QLineEdit* field_;
    QLabel* note_;
    QDialogButtonBox* buttons_;
};

} // namespace commprof::widgets
