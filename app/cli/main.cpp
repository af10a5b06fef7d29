// SPDX-License-Identifier: GPL-3.0-or-later
// commprof: the headless front end. Each subcommand lives in its own cmd_*.cpp; `report` runs
// in commprof-report (execReport), so the others load Qt Core alone.

#include "command_dispatch.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

using namespace commprof::cli;

namespace {

// `commprof report` draws with Qt Widgets and QCustomPlot, which take tens of milliseconds to
// load: a program of its own, so that every other command loads Qt Core alone. This process is
// replaced with it, run on `args` (the command line without the program's name); returns only
// when that failed, with the exit code, having said why. The program is commprof-report beside
// this one (a build tree), or in ../libexec/commprof/ (an installed tree); the first of the two,
// for the error message, when neither is there.
int execReport(const QStringList& args) {
    const QDir dir(QCoreApplication::applicationDirPath());
    const QString beside = dir.filePath("commprof-report");
    const QString installed = QDir::cleanPath(dir.filePath("../libexec/commprof/commprof-report"));
    const QString program = !QFileInfo(beside).isExecutable() && QFileInfo(installed).isExecutable()
                                ? installed
                                : beside;
    std::vector<QByteArray> words{QFile::encodeName(program)};
    for (const QString& a : args) {
        words.push_back(a.toLocal8Bit());
    }
    std::vector<char*> argv;
    for (QByteArray& w : words) {
        argv.push_back(w.data());
    }
    argv.push_back(nullptr);
    std::fflush(stdout);
    std::fflush(stderr);
    ::execv(argv.front(), argv.data());
    const int error = errno;
    return notFine(QString("report: cannot run %1 (%2): it draws the figures and is installed with "
                           "commprof, beside it or in ../libexec/commprof/")
                       .arg(program, QString::fromLocal8Bit(std::strerror(error))));
}

} // namespace

int main(int argc, char** argv) {
    keepSignalsAsErrors();
    const QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName("commprof");
    const QStringList args = QCoreApplication::arguments().mid(1);
    const CommandTable commands{
        {"plan", planCommand},
        {"run", runCommand},
        {"calibrate", calibrateCommand},
        {"probe", probeCommand},
        {"ingest", ingestCommand},
        {"cells", cellsCommand},
        // Parsed here first: a usage error or --help never starts the drawing program.
        {"report", [&args](const Args&) { return execReport(args); }},
        {"diff", diffCommand},
        {"trace summarize", traceSummarizeCommand},
        {"trace collectives", traceCollectivesCommand},
        {"trace reduce", traceReduceCommand},
        {"trace ddp", traceDdpCommand},
        {"trace whatif", traceWhatIfCommand},
        {"sweep run", sweepRunCommand},
        {"sweep summarize", sweepSummarizeCommand},
        {"recommend", recommendCommand},
        {"model export", modelExportCommand},
        {"model describe", modelDescribeCommand},
        {"calibrate hooks", calibrateHooksCommand},
        {"record", recordCommand},
        {"confirm", confirmCommand},
    };
    return dispatchCommand(args, commands);
}
