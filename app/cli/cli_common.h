#pragma once
// What every subcommand shares: exit codes and output conventions (docs/cli.md).

#include "matrix/launcher.h"

#include <QJsonObject>
#include <QStringList>

#include <optional>

namespace commprof::cli {

enum ExitCode : int { Ok = 0, NotFine = 1, BadInput = 2 };

// One JSON document on stdout.
void printJson(const QJsonObject& doc);
// Human text and errors go to stderr.
void printError(const QString& message);
void printText(const QString& text);

int usage(const QString& text);

// --launcher local|slurm; false for anything else.
bool parseLauncher(const QString& text, std::optional<matrix::LauncherKind>& out);

// What `--format` asks for; a table for reading is the default.
enum class Format { Table, Json, Csv };
// "table", "json" or "csv"; nullopt for anything else.
std::optional<Format> parseFormat(const QString& name);

int traceCommand(const QStringList& args);
int planCommand(const QStringList& args);
int runCommand(const QStringList& args);
int calibrateCommand(const QStringList& args);
int probeCommand(const QStringList& args);
int ingestCommand(const QStringList& args);
int cellsCommand(const QStringList& args);
int reportCommand(const QStringList& args);
int diffCommand(const QStringList& args);
int sweepCommand(const QStringList& args);

} // namespace commprof::cli
