// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The one description of a program's command line: it parses the line, and --help, the usage
// line of a usage error, the man page and the shell completions are all rendered from it, so
// none of them can disagree with what the program accepts. Plain C++17, so commprof-rank (no
// Qt) shares it.

#include <string>
#include <utility>
#include <vector>

namespace commprof::options {

struct Option {
    std::string flag;  // "--out"
    std::string value; // "DIR"; empty for a switch; ending in "..." takes several
    std::string help;  // one sentence
    std::vector<std::string> choices = {}; // the only values accepted, offered by completion
    bool required = false;                 // the command refuses to run without it
    bool takesValue() const { return !value.empty(); }
    bool takesSeveral() const;
};

// {"--out", "DIR", ...} that the command cannot do without.
Option required(Option option);

struct Command {
    std::string name; // "plan", or "trace summarize" for a command with a verb
    // "MATRIX.yaml": a word per operand; "[RUN_A RUN_B]" may be left out, "TRACE..." repeats.
    std::string operands;
    std::string summary; // one line
    std::vector<Option> options;
};

struct Section {
    std::string title; // "ENVIRONMENT"
    std::string text;  // paragraphs separated by blank lines
};

struct Program {
    std::string name;
    std::string summary;     // the man page's NAME line
    std::string description; // paragraphs separated by blank lines
    std::string operands;    // for a program without commands
    std::vector<Option> options;
    std::vector<Command> commands;
    std::vector<Section> sections;
};

const Command* findCommand(const Program& program, const std::string& name);

// "commprof plan MATRIX.yaml [--json] [--profile FILE]"
std::string usageLine(const Program& program, const Command* command);
// Every command's usage and summary, then the program's options and sections.
std::string helpText(const Program& program);
// One command: its usage, summary and an option per line.
std::string commandHelp(const Program& program, const Command& command);

std::string manPage(const Program& program, const std::string& version);
std::string bashCompletion(const Program& program);
std::string zshCompletion(const Program& program);

// "--format: expected table, json or csv, got 'xml'"; empty when `value` is one of the option's
// choices or it has none.
std::string choiceError(const Option& option, const std::string& value);

// A command's line (after the command words) as its table row reads it.
struct ParsedArgs {
    // The first thing wrong with the line, naming the flag or operand; empty when none is.
    std::string error;
    std::vector<std::string> operands;
    // Each flag as given, in order: a switch with an empty value, a flag taking several once per
    // value. Order matters where flags overlap (`--json` and `--format csv`: the last wins).
    std::vector<std::pair<std::string, std::string>> given;

    bool has(const std::string& flag) const;
    // The last value given for the flag, else `fallback`.
    std::string value(const std::string& flag, const std::string& fallback = {}) const;
    std::vector<std::string> values(const std::string& flag) const;
};

// Refuses flags the command does not list, a missing value, a value outside the choices, too
// few or too many operands and a required flag left out (or given empty).
ParsedArgs parseArgs(const Command& command, const std::vector<std::string>& args);

} // namespace commprof::options
