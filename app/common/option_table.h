#pragma once
// The one description of a program's command line: --help, the man page and the shell
// completions are all rendered from it, so none of them can disagree with what the program
// accepts. Plain C++17, so commprof-rank (no Qt) shares it.

#include <string>
#include <vector>

namespace commprof::options {

struct Option {
    std::string flag;                 // "--out"
    std::string value;                // "DIR"; empty for a switch; ending in "..." takes several
    std::string help;                 // one sentence
    std::vector<std::string> choices; // fixed values, offered by completion
    bool takesValue() const { return !value.empty(); }
    bool takesSeveral() const;
};

struct Command {
    std::string name;     // "plan", or "trace summarize" for a command with a verb
    std::string operands; // "MATRIX.yaml"
    std::string summary;  // one line
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
const Option* findOption(const std::vector<Option>& options, const std::string& flag);

// "commprof plan MATRIX.yaml [--json] [--profile FILE]"
std::string usageLine(const Program& program, const Command* command);
// Every command's usage and summary, then the program's options and sections.
std::string helpText(const Program& program);
// One command: its usage, summary and an option per line.
std::string commandHelp(const Program& program, const Command& command);

std::string manPage(const Program& program, const std::string& version);
std::string bashCompletion(const Program& program);
std::string zshCompletion(const Program& program);

// The flags of `args` (after the command words) that the command does not know, in order;
// empty when every flag is known.
std::vector<std::string> unknownFlags(const std::vector<Option>& options,
                                      const std::vector<std::string>& args);

} // namespace commprof::options
