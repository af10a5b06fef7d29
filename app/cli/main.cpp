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

// --help anywhere, and flags the table does not list, are answered here before a command runs,
// so a command can only accept what its --help and man page describe.
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
    const auto unknown = options::unknownFlags(command->options, toStd(rest));
    if (!unknown.empty()) {
        printError(QString("%1: unknown option '%2'")
                       .arg(QString::fromStdString(command->name),
                            QString::fromStdString(unknown.front())));
        std::fprintf(stderr, "usage: %s\n", options::usageLine(program, command).c_str());
        return BadInput;
    }
    return std::nullopt;
}

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
    if (const auto answered = answeredFromTable(args)) {
        return *answered;
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
        std::fputs(options::helpText(commprofProgram()).c_str(), stderr);
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
