// SPDX-License-Identifier: GPL-3.0-or-later
// commprof: the headless front end. Each subcommand lives in its own cmd_*.cpp; `report` runs
// in commprof-report (report_program.h), so the others load Qt Core alone.

#include "command_dispatch.h"
#include "report_program.h"

#include <QCoreApplication>

using namespace commprof::cli;

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
