// SPDX-License-Identifier: GPL-3.0-or-later
#include "unattended.h"

#include <QApplication>
#include <QDialog>
#include <QEvent>
#include <QMessageBox>
#include <QTextDocumentFragment>
#include <QTimer>

#include <cstdio>

namespace commprof::workbench {

UnattendedDialogs::UnattendedDialogs(QObject* parent) : QObject(parent) {
    qApp->installEventFilter(this);
}

bool UnattendedDialogs::eventFilter(QObject* watched, QEvent* event) {
    auto* dialog = qobject_cast<QDialog*>(watched);
    if (!dialog || event->type() != QEvent::Show) {
        return false;
    }
    QString text = dialog->windowTitle();
    if (auto* box = qobject_cast<QMessageBox*>(dialog)) {
        for (const QString& part : {box->text(), box->informativeText()}) {
            if (!part.isEmpty()) {
                text += ": " + QTextDocumentFragment::fromHtml(part).toPlainText();
            }
        }
    }
    std::fprintf(stderr, "commprof-workbench: %s\n", qPrintable(text));
    std::fflush(stderr);
    refused_ = true;
    // From inside the dialog's own loop, which exec() enters after this event: rejected there
    // it returns; the exit ends the main loop when the dialog came from within it.
    QTimer::singleShot(0, dialog, &QDialog::reject);
    QTimer::singleShot(0, qApp, [] { QApplication::exit(kExitCode); });
    return false;
}

} // namespace commprof::workbench
