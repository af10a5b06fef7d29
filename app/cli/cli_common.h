// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What every subcommand shares: exit codes, output conventions (docs/cli.md) and its line as the
// option table parsed it.

#include "matrix/launcher.h"
#include "option_table.h"

#include <QJsonObject>
#include <QStringList>

#include <exception>
#include <optional>

namespace commprof::cli {

enum ExitCode : int { Ok = 0, NotFine = 1, BadInput = 2 };

// One JSON document on stdout.
void printJson(const QJsonObject& doc);
// Human text and errors go to stderr. Both escape control characters (terminalSafe): the text
// holds names read from input files, and an ESC in a gradient's name must not reach the
// terminal as a command, nor a NUL end the output.
void printError(const QString& message);
void printText(const QString& text);
// printError(message), then BadInput: what a command returns for input it refuses; with an
// exception, its reader's message (which names the file).
int badInput(const QString& message);
int badInput(const std::exception& e);
// printError(message), then NotFine: the command ran and something went wrong.
int notFine(const QString& message);
// TEXT with every control character but newline and tab written as \xHH (C0, DEL and C1).
QString terminalSafe(const QString& text);

// A command's line, parsed by its row of the option table (cli_options.h): every flag is one
// the row lists, with its value and within its choices, and the operands and required flags are
// there. What only the command can check it refuses with usageError.
class Args {
public:
    Args(const options::Command& command, options::ParsedArgs parsed);

    const options::Command& command() const { return *command_; }
    // Empty when the table accepts the line.
    QString error() const { return QString::fromStdString(parsed_.error); }
    QStringList operands() const;
    bool has(const char* flag) const { return parsed_.has(flag); }
    // The last value given for the flag; `fallback` when none, or an empty one, was given.
    QString value(const char* flag, const QString& fallback = {}) const;
    QStringList values(const char* flag) const;
    // The flags in the order given, for flags that overlap (--json, --csv and --format).
    const std::vector<std::pair<std::string, std::string>>& given() const { return parsed_.given; }

    // "commprof: plan: MESSAGE" and the command's usage line from the table; BadInput.
    int usageError(const QString& message) const;

private:
    const options::Command* command_;
    options::ParsedArgs parsed_;
};

// --launcher, when given.
std::optional<matrix::LauncherKind> launcherOf(const Args& args);

// What `--format` (or `--json`, `--csv`) asks for, the last given winning; a table by default.
enum class Format { Table, Json, Csv };
Format formatOf(const Args& args);

int traceSummarizeCommand(const Args& args);
int traceCollectivesCommand(const Args& args);
int traceReduceCommand(const Args& args);
int traceDdpCommand(const Args& args);
int traceWhatIfCommand(const Args& args);
int planCommand(const Args& args);
int runCommand(const Args& args);
int calibrateCommand(const Args& args);
int probeCommand(const Args& args);
int ingestCommand(const Args& args);
int cellsCommand(const Args& args);
int reportCommand(const Args& args);
int diffCommand(const Args& args);
int sweepRunCommand(const Args& args);
int sweepSummarizeCommand(const Args& args);
int recommendCommand(const Args& args);
int modelExportCommand(const Args& args);
int modelDescribeCommand(const Args& args);
int recordCommand(const Args& args);
int confirmCommand(const Args& args);
int calibrateHooksCommand(const Args& args);
// commprof calibrate FILE.pt: the activation term of a TorchScript module measured by the rank
// itself, written into the description beside it, where plan reads it.
int calibrateActivations(const Args& args, const QString& module);

// The Python with PyTorch to run commprof's scripts with: COMMPROF_PYTHON, else Debian's
// /usr/bin/python3 (a python3 earlier on PATH may lack torch), else python3.
QString pythonProgram();

} // namespace commprof::cli
