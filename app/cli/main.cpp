// SPDX-License-Identifier: GPL-3.0-or-later
// commprof: the headless front end. Each subcommand lives in its own cmd_*.cpp.

#include "cli_common.h"
#include "cli_options.h"

#include <QApplication>
#include <QCoreApplication>

#include <csignal>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

using namespace commprof::cli;
namespace options = commprof::options;

namespace {

// The command a line names: one word, or two for a command with a verb ("trace summarize").
const options::Command* commandOf(const QStringList& args, int& words) {
    const auto& program = commprofProgram();
    if (args.size() > 1) {
        if (const auto* c =
                options::findCommand(program, (args[0] + ' ' + args[1]).toStdString())) {
            words = 2;
            return c;
        }
    }
    words = 1;
    return args.isEmpty() ? nullptr : options::findCommand(program, args[0].toStdString());
}

std::vector<std::string> toStd(const QStringList& list) {
    std::vector<std::string> out;
    for (const QString& s : list) {
        out.push_back(s.toStdString());
    }
    return out;
}

// --help anywhere, --version, and a command with verbs named without a valid verb are answered
// here, from the table.
std::optional<int> answeredFromTable(const QStringList& args) {
    const auto& program = commprofProgram();
    if (args.isEmpty() || args.first() == "--help" || args.first() == "-h") {
        std::fputs(options::helpText(program).c_str(), args.isEmpty() ? stderr : stdout);
        return args.isEmpty() ? BadInput : Ok;
    }
    if (args.first() == "--version") {
        std::printf("commprof %s\n", COMMPROF_VERSION);
        return Ok;
    }
    int words = 0;
    const options::Command* command = commandOf(args, words);
    if (!command) {
        // A command with verbs named without a valid one: its verbs' usage.
        std::string verbs;
        for (const auto& c : program.commands) {
            if (QString::fromStdString(c.name).section(' ', 0, 0) == args.first()) {
                verbs += "  " + options::usageLine(program, &c) + "\n";
            }
        }
        if (!verbs.empty()) {
            const bool help = args.contains("--help") || args.contains("-h");
            std::fputs(verbs.c_str(), help ? stdout : stderr);
            return help ? Ok : BadInput;
        }
        return std::nullopt; // main reports the unknown command
    }
    const QStringList rest = args.mid(words);
    if (rest.contains("--help") || rest.contains("-h")) {
        std::fputs(options::commandHelp(program, *command).c_str(), stdout);
        return Ok;
    }
    return std::nullopt;
}

} // namespace

int main(int argc, char** argv) {
    // A closed stdout (`| head`) or a file-size limit is an error to report, not a death.
    std::signal(SIGPIPE, SIG_IGN);
    std::signal(SIGXFSZ, SIG_IGN);
    // Only `report` draws (QCustomPlot needs a QApplication); it renders offscreen.
    // Asking for help draws nothing: no Qt GUI, so none of its warnings on stderr.
    bool asksHelp = false;
    for (int i = 1; i < argc; ++i) {
        asksHelp = asksHelp || std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h";
    }
    const bool drawing = argc > 1 && std::string(argv[1]) == "report" && !asksHelp;
    if (drawing && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
        qputenv("QT_QPA_PLATFORM", "offscreen");
    }
    std::unique_ptr<QCoreApplication> app(drawing ? new QApplication(argc, argv)
                                                  : new QCoreApplication(argc, argv));
    QCoreApplication::setApplicationName("commprof");
    const QStringList args = QCoreApplication::arguments().mid(1);
    if (const auto answered = answeredFromTable(args)) {
        return *answered;
    }
    // Keyed by the table's command names, so a line reaches only a command the table describes,
    // parsed by its row: a command can only accept what its --help and man page say.
    const std::map<std::string, std::function<int(const Args&)>> commands{
        {"plan", planCommand},
        {"run", runCommand},
        {"calibrate", calibrateCommand},
        {"probe", probeCommand},
        {"ingest", ingestCommand},
        {"cells", cellsCommand},
        {"report", reportCommand},
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
    };
    int words = 0;
    const options::Command* command = commandOf(args, words);
    const auto it = command ? commands.find(command->name) : commands.end();
    if (it == commands.end()) {
        printError(QString("unknown command '%1'").arg(args.first()));
        std::fputs(options::helpText(commprofProgram()).c_str(), stderr);
        return BadInput;
    }
    const Args parsed(*command, options::parseArgs(*command, toStd(args.mid(words))));
    if (!parsed.error().isEmpty()) {
        return parsed.usageError(parsed.error());
    }
    try {
        return it->second(parsed);
    } catch (const std::exception& e) {
        // The last boundary: whatever a command did not foresee ends it with a message.
        printError(QString("%1: %2").arg(QString::fromStdString(command->name),
                                         QString::fromLocal8Bit(e.what())));
        return BadInput;
    }
}
