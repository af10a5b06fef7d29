// SPDX-License-Identifier: GPL-3.0-or-later
#include "application.h"

#include <cstdio>

namespace commprof::workbench {

bool Application::notify(QObject* receiver, QEvent* event) {
    QString error;
    try {
        return QApplication::notify(receiver, event);
    } catch (const std::exception& e) {
        error = QString::fromUtf8(e.what());
    } catch (...) {
        error = "unknown error";
    }
    std::fprintf(stderr, "commprof-workbench: unexpected error: %s\n", qPrintable(error));
    if (sink_) {
        sink_(error);
    }
    return false;
}

} // namespace commprof::workbench
