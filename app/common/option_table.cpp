// SPDX-License-Identifier: GPL-3.0-or-later
#include "option_table.h"

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <sstream>

namespace commprof::options {
namespace {

std::vector<std::string> words(const std::string& s) {
    std::istringstream in(s);
    return {std::istream_iterator<std::string>(in), std::istream_iterator<std::string>()};
}

std::vector<std::string> paragraphs(const std::string& text) {
    std::vector<std::string> out;
    for (std::size_t start = 0, end = 0; start < text.size(); start = end + 2) {
        end = std::min(text.find("\n\n", start), text.size());
        out.push_back(text.substr(start, end - start));
    }
    return out;
}

std::string join(const std::vector<std::string>& v, const std::string& sep) {
    std::string out;
    for (const std::string& s : v) {
        out += (out.empty() ? "" : sep) + s;
    }
    return out;
}

// `s` with each character replaced by what `f` makes of it.
template <typename F> std::string eachChar(const std::string& s, F f) {
    std::string out;
    for (const char c : s) {
        out += f(c);
    }
    return out;
}

// Text padded with spaces to `width`, at least one space.
std::string padded(const std::string& text, std::size_t width) {
    return text + std::string(text.size() < width ? width - text.size() : 1, ' ');
}

// "plan MATRIX.yaml": a command with the operands it names.
std::string commandHead(const Command& c) {
    return c.name + (c.operands.empty() ? "" : " " + c.operands);
}

// "--format table|json|csv": fixed values read better than their placeholder.
std::string valueText(const Option& o) {
    return o.choices.empty() ? o.value : join(o.choices, "|");
}

std::string optionHead(const Option& o) {
    return o.flag + (o.takesValue() ? " " + valueText(o) : "");
}

// "options:" and a line per option, help text in a column.
std::string optionList(const std::vector<Option>& options) {
    std::string out = options.empty() ? "" : "\noptions:\n";
    for (const Option& o : options) {
        out += "  " + padded(optionHead(o), 26) + o.help + "\n";
    }
    return out;
}

// Roff treats a backslash as an escape and a leading dot or quote as a request; a hyphen is
// typeset as a minus only when written \-.
std::string roff(const std::string& s) {
    std::string out = eachChar(s, [](char c) -> std::string {
        return c == '\\' ? "\\e" : c == '-' ? "\\-" : std::string(1, c);
    });
    if (!out.empty() && (out[0] == '.' || out[0] == '\'')) {
        out = "\\&" + out;
    }
    return out;
}

std::string roffParagraphs(const std::string& text) {
    std::string out;
    const std::vector<std::string> ps = paragraphs(text);
    for (std::size_t i = 0; i < ps.size(); ++i) {
        out += i ? ".PP\n" : "";
        std::istringstream lines(ps[i]);
        for (std::string line; std::getline(lines, line);) {
            out += roff(line) + "\n";
        }
    }
    return out;
}

// "\-\-out \fIDIR\fR"
std::string roffHead(const Option& o) {
    return roff(o.flag) + (o.takesValue() ? " \\fI" + roff(valueText(o)) + "\\fR" : "");
}

std::string roffOptions(const std::vector<Option>& options) {
    std::string out;
    for (const Option& o : options) {
        out += ".TP\n.B " + roffHead(o) + "\n" + roff(o.help) + "\n";
    }
    return out;
}

// The synopsis names the options a command cannot do without.
std::string roffRequired(const std::vector<Option>& options) {
    std::string out;
    for (const Option& o : options) {
        out += o.required ? roffHead(o) + " " : "";
    }
    return out;
}

std::string upper(const std::string& s) {
    return eachChar(s, [](unsigned char c) { return std::string(1, char(std::toupper(c))); });
}

// Command names that take a verb ("trace summarize") complete in two steps.
std::vector<std::string> firstWords(const Program& p) {
    std::vector<std::string> out;
    for (const Command& c : p.commands) {
        const std::string w = words(c.name).front();
        if (std::find(out.begin(), out.end(), w) == out.end()) {
            out.push_back(w);
        }
    }
    return out;
}

// The first words that take verbs, each with its verbs.
std::vector<std::pair<std::string, std::vector<std::string>>> verbGroups(const Program& p) {
    std::vector<std::pair<std::string, std::vector<std::string>>> out;
    for (const std::string& first : firstWords(p)) {
        std::vector<std::string> verbs;
        for (const Command& c : p.commands) {
            if (const auto w = words(c.name); w.size() > 1 && w[0] == first) {
                verbs.push_back(w[1]);
            }
        }
        if (!verbs.empty()) {
            out.emplace_back(first, verbs);
        }
    }
    return out;
}

bool namesFolder(const Option& o) {
    return o.value.find("DIR") != std::string::npos;
}

std::string bashValueCase(const std::vector<Option>& options) {
    std::string out;
    for (const Option& o : options) {
        if (!o.takesValue()) {
            continue;
        }
        const std::string reply = !o.choices.empty()
                                      ? "compgen -W \"" + join(o.choices, " ") + "\" -- \"$cur\""
                                  : namesFolder(o) ? "compgen -d -- \"$cur\""
                                                   : "compgen -f -- \"$cur\"";
        out += "        " + o.flag + ") COMPREPLY=($(" + reply + ")); return ;;\n";
    }
    return out;
}

std::vector<std::string> flagsOf(const std::vector<Option>& options) {
    std::vector<std::string> out;
    for (const Option& o : options) {
        out.push_back(o.flag);
    }
    return out;
}

std::string bashFunctionName(const Program& p) {
    std::string name = "_" + p.name;
    std::replace(name.begin(), name.end(), '-', '_');
    return name;
}

// zsh's _arguments specs use [ ] : as syntax; help text only needs to read well.
std::string zshText(const std::string& s) {
    return eachChar(s, [](char c) -> std::string {
        return c == '[' || c == '('   ? "{"
               : c == ']' || c == ')' ? "}"
               : c == ':'             ? " "
               : c == '\''            ? "'\\''"
                                      : std::string(1, c);
    });
}

std::string zshArguments(const std::vector<Option>& options, const std::string& indent) {
    std::string out = indent + "_arguments -s \\\n";
    for (const Option& o : options) {
        std::string spec = "'" + o.flag + "[" + zshText(o.help) + "]";
        if (o.takesValue()) {
            spec += ":" + zshText(o.value) + ":" +
                    (!o.choices.empty() ? "(" + join(o.choices, " ") + ")"
                     : namesFolder(o)   ? "_files -/"
                                        : "_files");
        }
        out += indent + "    " + spec + "' \\\n";
    }
    out += indent + "    '*:file:_files'\n";
    return out;
}

bool startsWithDashes(const std::string& arg) {
    return arg.rfind("--", 0) == 0;
}

// The operands a command's text names.
struct OperandSpec {
    std::vector<std::string> names; // without brackets and dots
    std::size_t needed = 0;         // the first `needed` names must be given
    bool repeats = false;           // the last name may be given any number of times
};

OperandSpec operandSpec(const std::string& text) {
    OperandSpec spec;
    bool optional = false;
    for (std::string w : words(text)) {
        if (w.front() == '[') {
            optional = true;
            w.erase(0, 1);
        }
        const bool closes = !w.empty() && w.back() == ']';
        if (closes) {
            w.pop_back();
        }
        if (w.size() > 3 && w.compare(w.size() - 3, 3, "...") == 0) {
            spec.repeats = true;
            w.resize(w.size() - 3);
        }
        spec.needed += optional ? 0 : 1;
        spec.names.push_back(w);
        optional = optional && !closes;
    }
    return spec;
}

} // namespace

Option required(Option option) {
    option.required = true;
    return option;
}

bool Option::takesSeveral() const {
    // "K,..." is one comma-separated value, "REPORT..." one value per word.
    return value.size() > 3 && value.compare(value.size() - 3, 3, "...") == 0 &&
           value[value.size() - 4] != ',';
}

const Command* findCommand(const Program& program, const std::string& name) {
    const auto& c = program.commands;
    const auto it =
        std::find_if(c.begin(), c.end(), [&](const Command& x) { return x.name == name; });
    return it == c.end() ? nullptr : &*it;
}

std::string usageLine(const Program& program, const Command* command) {
    std::string out = program.name + (command ? " " + command->name : "");
    const std::vector<Option>& opts = command ? command->options : program.options;
    const std::string& operands = command ? command->operands : program.operands;
    if (!operands.empty()) {
        out += " " + operands;
    }
    // What the command cannot do without reads first, unbracketed.
    for (const bool needed : {true, false}) {
        for (const Option& o : opts) {
            if (o.required == needed) {
                out += " " + (needed ? optionHead(o) : "[" + optionHead(o) + "]");
            }
        }
    }
    return out;
}

std::string commandHelp(const Program& program, const Command& command) {
    return "usage: " + usageLine(program, &command) + "\n\n" + command.summary + "\n" +
           optionList(command.options);
}

std::string helpText(const Program& program) {
    std::string out = program.name + ": " + program.summary + "\n\n";
    if (program.commands.empty()) {
        out += "usage: " + usageLine(program, nullptr) + "\n";
    } else {
        out += "usage: " + program.name + " COMMAND [ARGS]\n\ncommands:\n";
        for (const Command& c : program.commands) {
            out += "  " + padded(commandHead(c), 38) + c.summary + "\n";
        }
        out += "\n'" + program.name + " COMMAND --help' lists a command's options.\n";
    }
    out += optionList(program.options);
    for (const Section& s : program.sections) {
        out += "\n" + s.title + "\n" + s.text + "\n";
    }
    return out;
}

std::string manPage(const Program& program, const std::string& version) {
    std::string out = ".TH " + upper(program.name) + " 1 \"\" \"" + program.name + " " + version +
                      "\" \"User Commands\"\n";
    out += ".SH NAME\n" + roff(program.name) + " \\- " + roff(program.summary) + "\n.SH SYNOPSIS\n";
    if (program.commands.empty()) {
        out += ".B " + roff(program.name) + "\n" +
               roff(usageLine(program, nullptr).substr(program.name.size() + 1)) + "\n";
    } else {
        for (const Command& c : program.commands) {
            out += ".B " + roff(program.name + " " + c.name) + "\n" +
                   (c.operands.empty() ? "" : "\\fI" + roff(c.operands) + "\\fR ") +
                   roffRequired(c.options) + "[options]\n.br\n";
        }
    }
    out += ".SH DESCRIPTION\n" + roffParagraphs(program.description);
    if (!program.commands.empty()) {
        out += ".SH COMMANDS\n";
        for (const Command& c : program.commands) {
            out += ".SS " + roff(commandHead(c)) + "\n" + roff(c.summary) + "\n" +
                   roffOptions(c.options);
        }
    }
    if (!program.options.empty()) {
        out += ".SH OPTIONS\n" + roffOptions(program.options);
    }
    for (const Section& s : program.sections) {
        out += ".SH " + roff(upper(s.title)) + "\n" + roffParagraphs(s.text);
    }
    return out;
}

std::string bashCompletion(const Program& program) {
    const std::string fn = bashFunctionName(program);
    std::string out = "# bash completion for " + program.name + ", generated from its options\n" +
                      fn + "() {\n    local cur=\"${COMP_WORDS[COMP_CWORD]}\" " +
                      "prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n";
    // The words a flag completes from: the program's flags, or its command's.
    std::string flagWords = "$opts";
    if (program.commands.empty()) {
        out += "    case \"$prev\" in\n" + bashValueCase(program.options) + "    esac\n";
        flagWords = join(flagsOf(program.options), " ");
    } else {
        std::vector<std::string> top = firstWords(program);
        const std::vector<std::string> flags = flagsOf(program.options);
        top.insert(top.end(), flags.begin(), flags.end());
        out += "    if [[ $COMP_CWORD -eq 1 ]]; then\n        COMPREPLY=($(compgen -W \"" +
               join(top, " ") + "\" -- \"$cur\")); return\n    fi\n";
        out += "    local cmd=\"${COMP_WORDS[1]}\"\n    case \"$cmd\" in\n";
        for (const auto& [w, verbs] : verbGroups(program)) {
            out += "    " + w + ")\n        if [[ $COMP_CWORD -eq 2 ]]; then\n" +
                   "            COMPREPLY=($(compgen -W \"" + join(verbs, " ") +
                   "\" -- \"$cur\")); return\n        fi\n" +
                   "        cmd=\"$cmd ${COMP_WORDS[2]}\" ;;\n";
        }
        out += "    esac\n    local opts=\"--help\"\n    case \"$cmd\" in\n";
        for (const Command& c : program.commands) {
            out += "    \"" + c.name + "\")\n        opts=\"" + join(flagsOf(c.options), " ") +
                   " --help\"\n        case \"$prev\" in\n" + bashValueCase(c.options) +
                   "        esac ;;\n";
        }
        out += "    esac\n";
    }
    out += "    if [[ \"$cur\" == -* ]]; then\n        COMPREPLY=($(compgen -W \"" + flagWords +
           "\" -- \"$cur\"))\n    else\n        COMPREPLY=($(compgen -f -- \"$cur\"))\n    fi\n}\n";
    out += "complete -o filenames -F " + fn + " " + program.name + "\n";
    return out;
}

std::string zshCompletion(const Program& program) {
    const std::string fn = bashFunctionName(program);
    std::string out = "#compdef " + program.name + "\n# zsh completion for " + program.name +
                      ", generated from its options\n" + fn + "() {\n";
    if (program.commands.empty()) {
        out += zshArguments(program.options, "    ");
    } else {
        out += "    local -a commands\n    commands=(\n";
        for (const std::string& w : firstWords(program)) {
            std::string summary;
            for (const Command& c : program.commands) {
                if (words(c.name).front() == w) {
                    summary += (summary.empty() ? "" : "; ") + c.summary;
                }
            }
            out += "        '" + w + ":" + zshText(summary) + "'\n";
        }
        out += "    )\n    if (( CURRENT == 2 )); then\n        _describe command commands\n"
               "        return\n    fi\n    local cmd=\"${words[2]}\"\n";
        for (const auto& [w, verbs] : verbGroups(program)) {
            out += "    if [[ $cmd == " + w + " ]]; then\n        if (( CURRENT == 3 )); then\n" +
                   "            compadd -- " + join(verbs, " ") +
                   "\n            return\n        fi\n        cmd=\"$cmd ${words[3]}\"\n    fi\n";
        }
        out += "    case \"$cmd\" in\n";
        for (const Command& c : program.commands) {
            std::vector<Option> opts = c.options;
            opts.push_back({"--help", "", "Show this command's options"});
            out += "    '" + c.name + "')\n" + zshArguments(opts, "        ") + "        ;;\n";
        }
        out += "    esac\n";
    }
    out += "}\n" + fn + " \"$@\"\n";
    return out;
}

std::string choiceError(const Option& option, const std::string& value) {
    const auto& c = option.choices;
    if (c.empty() || std::find(c.begin(), c.end(), value) != c.end()) {
        return {};
    }
    std::string list;
    for (std::size_t i = 0; i < c.size(); ++i) {
        list += (i == 0 ? "" : i + 1 == c.size() ? " or " : ", ") + c[i];
    }
    return option.flag + ": expected " + list + ", got '" + value + "'";
}

bool ParsedArgs::has(const std::string& flag) const {
    return std::any_of(given.begin(), given.end(), [&](const auto& g) { return g.first == flag; });
}

std::string ParsedArgs::value(const std::string& flag, const std::string& fallback) const {
    const auto it =
        std::find_if(given.rbegin(), given.rend(), [&](const auto& g) { return g.first == flag; });
    return it == given.rend() ? fallback : it->second;
}

std::vector<std::string> ParsedArgs::values(const std::string& flag) const {
    std::vector<std::string> out;
    for (const auto& [f, v] : given) {
        if (f == flag) {
            out.push_back(v);
        }
    }
    return out;
}

ParsedArgs parseArgs(const Command& command, const std::vector<std::string>& args) {
    ParsedArgs out;
    const auto refuse = [&out](std::string error) {
        out.error = std::move(error);
        return out;
    };
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--") {
            // Everything after is another program's line (`record -- python3 train.py --lr 1`).
            out.operands.insert(out.operands.end(), args.begin() + std::ptrdiff_t(i) + 1,
                                args.end());
            break;
        }
        if (!startsWithDashes(a)) {
            out.operands.push_back(a);
            continue;
        }
        const auto o = std::find_if(command.options.begin(), command.options.end(),
                                    [&](const Option& x) { return x.flag == a; });
        if (o == command.options.end()) {
            return refuse("unknown option '" + a + "'");
        }
        if (!o->takesValue()) {
            out.given.emplace_back(a, "");
        } else if (o->takesSeveral()) {
            while (i + 1 < args.size() && !startsWithDashes(args[i + 1])) {
                out.given.emplace_back(a, args[++i]);
            }
        } else if (i + 1 >= args.size()) {
            return refuse(a + ": missing value");
        } else if (std::string e = choiceError(*o, args[i + 1]); !e.empty()) {
            return refuse(std::move(e));
        } else {
            // Taken whatever it looks like: `--change "--seed 1"` hands flags on.
            out.given.emplace_back(a, args[++i]);
        }
    }
    const OperandSpec spec = operandSpec(command.operands);
    for (std::size_t k = 0; k < spec.needed; ++k) {
        if (k >= out.operands.size() || out.operands[k].empty()) {
            return refuse("missing " + spec.names[k]);
        }
    }
    if (!spec.repeats && out.operands.size() > spec.names.size()) {
        return refuse("unexpected argument '" + out.operands[spec.names.size()] + "'");
    }
    for (const Option& o : command.options) {
        if (o.required && out.value(o.flag).empty()) {
            return refuse(o.flag + " is required");
        }
    }
    return out;
}

} // namespace commprof::options
