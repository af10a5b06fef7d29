// commprof: the headless front end. Each subcommand lives in its own cmd_*.cpp.

#include "cli_common.h"

#include <QApplication>
#include <QCoreApplication>

#include <csignal>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <string>

using namespace commprof::cli;

namespace {

const char* kUsage =
    "commprof <command> [args]\n"
    "  plan MATRIX.yaml [--profile F] [--host-budget-gib X] [--device-budget-gib Y] [--json]\n"
    "  run MATRIX.yaml --out DIR [--resume] [--only CELL_ID] [--json-progress]\n"
    "  calibrate DIR [--profile F] [--write-profile F] [--json]\n"
    "  probe [--json] [--results DIR] [--ports A-B] [--cleanup] [--no-formation]\n"
    "  ingest DIR [--db FILE]\n"
    "  cells DIR [--db FILE] [--json | --csv]\n"
    "  report DIR --out OUTDIR [--db FILE]\n"
    "  diff RUN_A RUN_B [--json] | diff --arms --out DIR --change FLAGS [--base FLAGS]\n"
    "  trace summarize TRACE_OR_DIR... [--json] [--hta] [--window START:END]\n"
    "                                   per-step figures; several ranks: skew and stragglers\n"
    "  trace collectives TRACE [--json]  one record per collective, bytes and bandwidth\n";

} // namespace

int main(int argc, char** argv) {
    // A closed stdout (`| head`) or a file-size limit is an error to report, not a death.
    std::signal(SIGPIPE, SIG_IGN);
    std::signal(SIGXFSZ, SIG_IGN);
    // Only `report` draws (QCustomPlot needs a QApplication); it renders offscreen.
    const bool drawing = argc > 1 && std::string(argv[1]) == "report";
    if (drawing && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
        qputenv("QT_QPA_PLATFORM", "offscreen");
    }
    std::unique_ptr<QCoreApplication> app(drawing ? new QApplication(argc, argv)
                                                  : new QCoreApplication(argc, argv));
    QCoreApplication::setApplicationName("commprof");
    QStringList args = QCoreApplication::arguments().mid(1);
    if (args.isEmpty() || args.first() == "--help" || args.first() == "-h") {
        std::fputs(kUsage, args.isEmpty() ? stderr : stdout);
        return args.isEmpty() ? BadInput : Ok;
    }
    const std::map<QString, std::function<int(const QStringList&)>> commands{
        {"trace", traceCommand},         {"plan", planCommand},     {"run", runCommand},
        {"calibrate", calibrateCommand}, {"probe", probeCommand},   {"ingest", ingestCommand},
        {"cells", cellsCommand},         {"report", reportCommand}, {"diff", diffCommand},
    };
    const QString name = args.takeFirst();
    const auto it = commands.find(name);
    if (it == commands.end()) {
        printError(QString("unknown command '%1'").arg(name));
        std::fputs(kUsage, stderr);
        return BadInput;
    }
    try {
        return it->second(args);
    } catch (const std::exception& e) {
        // The last boundary: whatever a command did not foresee ends it with a message.
        printError(QString("%1: %2").arg(name, QString::fromLocal8Bit(e.what())));
        return BadInput;
    }
}
