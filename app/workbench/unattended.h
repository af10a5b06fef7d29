// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A run with --screenshot has nobody to answer a dialog. Each dialog that opens (a refused
// results folder, an error that asks) is written to stderr instead and ends the program with
// kExitCode, so such a run never waits for a click that cannot come.

#include <QObject>

namespace commprof::workbench {

class UnattendedDialogs : public QObject {
    Q_OBJECT
public:
    static constexpr int kExitCode = 2;
    // Watches every window of the application from now on.
    explicit UnattendedDialogs(QObject* parent = nullptr);
    // True once a dialog was refused: then the program ends with kExitCode.
    bool refused() const { return refused_; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    bool refused_ = false;
};

} // namespace commprof::workbench
