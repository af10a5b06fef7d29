// SPDX-License-Identifier: GPL-3.0-or-later
#include "command_dispatch.h"

#include "cli_options.h"
#include "spec/mapped.h"

#include <csignal>
#include <exception>
#include <optional>
#include <vector>

namespace commprof::cli {

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
    // After "--" the words are another program's (`record -- python3 train.py --help`).
    const QStringList rest =
        args.mid(words, args.indexOf("--") < 0 ? -1 : args.indexOf("--") - words);
    if (rest.contains("--help") || rest.contains("-h")) {
        std::fputs(options::commandHelp(program, *command).c_str(), stdout);
        return Ok;
    }
    return std::nullopt;
}

} // namespace

void keepSignalsAsErrors() {
    std::signal(SIGPIPE, SIG_IGN);
    std::signal(SIGXFSZ, SIG_IGN);
}

int dispatchCommand(const QStringList& args, const CommandTable& commands) {
    if (const auto answered = answeredFromTable(args)) {
        return *answered;
    }
    int words = 0;
    const options::Command* command = commandOf(args, words);
    const auto it = command ? commands.find(command->name) : commands.end();
    if (it == commands.end()) {
        printError(QString("unknown command '%1'").arg(args.first()));
        std::fputs(options::helpText(commprofProgram()).c_str(), stderr);
        return BadInput;
    }
    const auto line = spec::mapped<std::vector<std::string>>(
        args.mid(words), [](const QString& s) { return s.toStdString(); });
    const Args parsed(*command, options::parseArgs(*command, line));
    if (!parsed.error().isEmpty()) {
        return parsed.usageError(parsed.error());
    }
    try {
        return it->second(parsed);
    } catch (const std::exception& e) {
        // The last boundary: whatever a command did not foresee ends it with a message.
        return badInput(QString("%1: %2").arg(QString::fromStdString(command->name),
                                              QString::fromLocal8Bit(e.what())));
    }
}

} // namespace commprof::cli
