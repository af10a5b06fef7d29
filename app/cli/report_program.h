// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// `commprof report` draws with Qt Widgets and QCustomPlot, which take tens of milliseconds to
// load: a program of its own, so that every other command loads Qt Core alone.

#include <QString>
#include <QStringList>

namespace commprof::cli {

// commprof-report beside this program (a build tree), or in ../libexec/commprof/ (an installed
// tree); the first of the two that is missing, for the error message, when neither is there.
QString reportProgram();

// Replaces this process with the report program run on `args` (the command line without the
// program's name). Returns only when that failed, with the exit code, having said why.
int execReport(const QStringList& args);

} // namespace commprof::cli
