// SPDX-License-Identifier: GPL-3.0-or-later
// commprof-report: `commprof report`, the one command that draws. commprof hands its command
// line over with exec, so the user sees one program; run by hand it takes the same line.

#include "command_dispatch.h"

#include <QApplication>

using namespace commprof::cli;

int main(int argc, char** argv) {
    keepSignalsAsErrors();
    // QCustomPlot needs a QApplication; the figures render offscreen, with or without a display.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
        qputenv("QT_QPA_PLATFORM", "offscreen");
    }
    const QApplication app(argc, argv);
    QCoreApplication::setApplicationName("commprof");
    return dispatchCommand(QCoreApplication::arguments().mid(1), {{"report", reportCommand}});
}
