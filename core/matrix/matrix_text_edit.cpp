// SPDX-License-Identifier: GPL-3.0-or-later
#include "matrix_text_edit.h"

#include "matrix/yaml_fields.h"

#include <QRegularExpression>

#include <vector>

namespace commprof::matrix {

namespace {

// The text's lines, as indices of their first characters (yaml-cpp's marks count lines).
std::vector<int> lineStarts(const QString& text) {
    std::vector<int> starts{0};
    for (int i = 0; i < text.size(); ++i) {
        if (text[i] == u'\n') {
            starts.push_back(i + 1);
        }
    }
    return starts;
}

QString lineText(const QString& text, const std::vector<int>& starts, std::size_t line) {
    const int from = starts[line];
    const int to = line + 1 < starts.size() ? starts[line + 1] : int(text.size());
    return text.mid(from, to - from);
}

// Lines a block may end with that belong to what follows it: blank, a comment, an end marker.
bool trailing(const QString& line) {
    const QString t = line.trimmed();
    return t.isEmpty() || t.startsWith(u'#') || t == QLatin1String("...");
}

struct TopLevel {
    YAML::Node root;
    QString text;
    std::vector<int> starts;
    std::vector<std::pair<QString, int>> keys; // each top-level key and its line, in order
};

TopLevel topLevel(const QString& yaml, const QString& file) {
    TopLevel t{loadYaml(yaml.toUtf8(), file), yaml, lineStarts(yaml), {}};
    if (t.root.IsNull()) {
        return t; // an empty text: everything is added at its end
    }
    Ctx{file}.failIf(
        !t.root.IsMap() || t.root.Style() == YAML::EmitterStyle::Flow, t.root, "matrix",
        "the designer edits a matrix written as a block mapping (one key per line); this "
        "one is not, so edit its text");
    for (auto it = t.root.begin(); it != t.root.end(); ++it) {
        t.keys.emplace_back(QString::fromStdString(it->first.Scalar()), it->first.Mark().line);
    }
    return t;
}

// The characters of `key`'s block, from its line to the line before the next key, without the
// blank and comment lines it ends with; nullopt when the key is not there.
std::optional<std::pair<int, int>> blockOf(const TopLevel& t, const QString& key) {
    for (std::size_t i = 0; i < t.keys.size(); ++i) {
        if (t.keys[i].first != key) {
            continue;
        }
        const auto first = std::size_t(t.keys[i].second);
        std::size_t end =
            i + 1 < t.keys.size() ? std::size_t(t.keys[i + 1].second) : t.starts.size();
        while (end > first + 1 && trailing(lineText(t.text, t.starts, end - 1))) {
            --end;
        }
        const int to = end < t.starts.size() ? t.starts[end] : int(t.text.size());
        return std::pair{t.starts[first], to};
    }
    return std::nullopt;
}

// `lines` inserted at `at`: after a newline, which the text there may lack.
TextEdit insertAt(const QString& text, int at, const QString& lines) {
    const bool needsBreak = at > 0 && text[at - 1] != u'\n';
    return {at, 0, (needsBreak ? "\n" : "") + lines};
}

TextEdit replaceBlock(const QString& text, std::pair<int, int> block, const QString& line) {
    // The block's last line kept its newline, unless it was the text's last line without one.
    const bool hadBreak = block.second > block.first && text[block.second - 1] == u'\n';
    return {block.first, block.second - block.first, line + (hadBreak ? "\n" : "")};
}

QString gib(std::optional<double> v) {
    return v ? QString::number(*v, 'g', 6) : QString("auto");
}

// Where a flow sequence that opens at `open` closes, and the end of its last element (after
// which a new one goes); quotes and comments are skipped, so a ']' in either does not count.
std::pair<int, int> flowSequenceEnd(const QString& text, int open, const QString& file, int line) {
    int depth = 0;
    int lastSignificant = open + 1;
    QChar previous; // the last significant character: a quote opens a scalar only after these
    for (int i = open; i < text.size(); ++i) {
        const QChar c = text[i];
        const bool startsScalar = previous.isNull() || QStringView(u"[{,:").contains(previous);
        if ((c == u'\'' || c == u'"') && startsScalar) {
            for (++i; i < text.size() && text[i] != c; ++i) {
                if (c == u'"' && text[i] == u'\\') {
                    ++i;
                }
            }
            lastSignificant = i + 1;
            previous = c;
            continue;
        }
        if (c == u'#' && (i == 0 || text[i - 1].isSpace())) {
            while (i < text.size() && text[i] != u'\n') {
                ++i;
            }
            continue;
        }
        if (c == u'[' || c == u'{') {
            ++depth;
        } else if (c == u']' || c == u'}') {
            if (--depth == 0) {
                return {i, lastSignificant};
            }
        }
        if (!c.isSpace()) {
            lastSignificant = i + 1;
            previous = c;
        }
    }
    throw MatrixError(file, line + 1, 1, "models", "the models list is not closed with ']'");
}

// A mark as an index of the text: yaml-cpp counts columns in bytes, the text in characters.
int offsetOf(const QString& yaml, const TopLevel& t, const YAML::Mark& mark) {
    const int start = t.starts[std::size_t(mark.line)];
    const QByteArray line = lineText(yaml, t.starts, std::size_t(mark.line)).toUtf8();
    return start + int(QString::fromUtf8(line.left(mark.column)).size());
}

// The key and value nodes of `key` in a block mapping (the last, were it written twice); false
// when it has none. A default node is a null one, not an absent one, hence the reset.
bool findKey(const YAML::Node& map, const QString& key, YAML::Node& keyNode,
             YAML::Node& valueNode) {
    const std::string wanted = key.toStdString();
    bool found = false;
    for (auto it = map.begin(); it != map.end(); ++it) {
        if (it->first.Scalar() == wanted) {
            keyNode.reset(it->first);
            valueNode.reset(it->second);
            found = true;
        }
    }
    return found;
}

// `key`'s value (which keyNode and valueNode are) replaced by `value`: a flow list whole, a
// block list's lines, or one value on the key's line up to a comment, which stays.
TextEdit valueEdit(const QString& yaml, const TopLevel& t, const QString& key,
                   const YAML::Node& keyNode, const YAML::Node& valueNode, const QString& value,
                   const QString& file, bool inFlowMapping = false) {
    const int colon = int(yaml.indexOf(u':', offsetOf(yaml, t, keyNode.Mark()) + key.size()));
    const auto lineEnd = [&](int from) {
        int end = int(yaml.indexOf(u'\n', from));
        end = end < 0 ? int(yaml.size()) : end;
        return end > from && yaml[end - 1] == u'\r' ? end - 1 : end;
    };
    int end = 0;
    if ((valueNode.IsSequence() || valueNode.IsMap()) &&
        valueNode.Style() == YAML::EmitterStyle::Flow) {
        const int open = int(yaml.indexOf(valueNode.IsSequence() ? u'[' : u'{', colon));
        end = flowSequenceEnd(yaml, open, file, keyNode.Mark().line).first + 1;
    } else if (valueNode.IsSequence() && valueNode.size() > 0) {
        // A block list: its items' lines go, the last one's comment with them.
        const auto last = std::size_t(valueNode[valueNode.size() - 1].Mark().line);
        end = lineEnd(t.starts[last]);
    } else {
        // One value on the key's line: up to a comment, which stays, or in a flow mapping up
        // to the next key or the mapping's end.
        end = lineEnd(colon);
        for (int i = colon + 1; i < end; ++i) {
            if ((yaml[i] == u'#' && yaml[i - 1].isSpace()) ||
                (inFlowMapping && (yaml[i] == u',' || yaml[i] == u'}'))) {
                end = i;
                break;
            }
        }
        while (end > colon + 1 && yaml[end - 1].isSpace()) {
            --end;
        }
    }
    return {colon + 1, end - (colon + 1), " " + value};
}

} // namespace

QString applied(const QString& yaml, const TextEdit& edit) {
    QString out = yaml;
    out.replace(edit.from, edit.length, edit.text);
    return out;
}

TextEdit budgetEdit(const QString& yaml, const QString& file, const BudgetSpec& budget) {
    const TopLevel t = topLevel(yaml, file);
    const QString line = QString("budget: {host_gib: %1, device_gib: %2, reserve_gib: %3}")
                             .arg(gib(budget.hostGib), gib(budget.deviceGib),
                                  QString::number(budget.reserveGib, 'g', 6));
    const auto block = blockOf(t, "budget");
    return block ? replaceBlock(yaml, *block, line) : insertAt(yaml, int(yaml.size()), line + "\n");
}

TextEdit appendModelEdit(const QString& yaml, const QString& file, const QString& entry) {
    const TopLevel t = topLevel(yaml, file);
    const QString alone = "models: [" + entry + "]";
    const std::optional<std::pair<int, int>> block = blockOf(t, "models");
    const YAML::Node models = t.root.IsNull() ? YAML::Node() : t.root["models"];
    if (!block) {
        return insertAt(yaml, int(yaml.size()), alone + "\n");
    }
    if (models.IsNull() ||
        (models.IsSequence() && models.size() == 0 && models.Style() != YAML::EmitterStyle::Flow)) {
        return replaceBlock(yaml, *block, alone);
    }
    Ctx{file}.failIf(!models.IsSequence(), models, "models",
                     "models is not a list, so a model cannot be added to it");
    const int keyLine = models.Mark().line;
    if (models.Style() == YAML::EmitterStyle::Flow) {
        // From the start of its line: yaml-cpp counts columns in bytes, the text in characters.
        const int open = int(yaml.indexOf(u'[', t.starts[std::size_t(keyLine)]));
        const int after = flowSequenceEnd(yaml, open, file, keyLine).second;
        return {after, 0, models.size() == 0 ? entry : ", " + entry};
    }
    // A block list: a new item after the last, indented as the first.
    const QString first = lineText(yaml, t.starts, std::size_t(models[0].Mark().line));
    const QString indent = first.left(std::max(0, int(first.indexOf(u'-'))));
    return insertAt(yaml, block->second, indent + "- " + entry + "\n");
}

TextEdit defaultsValueEdit(const QString& yaml, const QString& file, const QString& key,
                           const QString& value) {
    const TopLevel t = topLevel(yaml, file);
    const QString entry = key + ": " + value;
    const std::optional<std::pair<int, int>> block = blockOf(t, "defaults");
    if (!block) {
        return insertAt(yaml, int(yaml.size()), "defaults:\n  " + entry + "\n");
    }
    const YAML::Node defaults = t.root["defaults"];
    if (defaults.IsNull()) {
        return replaceBlock(yaml, *block, "defaults:\n  " + entry);
    }
    Ctx{file}.failIf(!defaults.IsMap() || defaults.Style() == YAML::EmitterStyle::Flow, defaults,
                     "defaults",
                     "the designer edits defaults written as a block mapping (one key per line); "
                     "these are not, so edit their text");
    YAML::Node keyNode, valueNode;
    if (!findKey(defaults, key, keyNode, valueNode)) {
        // A new last line of the block, indented as its first key.
        const QString first =
            lineText(yaml, t.starts, std::size_t(defaults.begin()->first.Mark().line));
        const QString indent = first.left(first.indexOf(QRegularExpression("[^ \t]")));
        return insertAt(yaml, block->second, indent + entry + "\n");
    }
    return valueEdit(yaml, t, key, keyNode, valueNode, value, file);
}

TextEdit modelValueEdit(const QString& yaml, const QString& file, const QString& model,
                        const QString& key, const QString& value) {
    const TopLevel t = topLevel(yaml, file);
    const YAML::Node models = t.root.IsNull() ? YAML::Node() : t.root["models"];
    std::optional<YAML::Node> found;
    if (models.IsSequence()) {
        for (const YAML::Node& m : models) {
            if (m.IsMap() && m["name"] && m["name"].IsScalar() &&
                QString::fromStdString(m["name"].Scalar()) == model) {
                found.emplace(m);
            }
        }
    }
    if (!found) {
        throw MatrixError(file, models ? models.Mark().line + 1 : 1, 1, "models",
                          QString("no model entry named '%1' in the matrix").arg(model));
    }
    const YAML::Node entry = *found;
    YAML::Node keyNode, valueNode;
    if (findKey(entry, key, keyNode, valueNode)) {
        return valueEdit(yaml, t, key, keyNode, valueNode, value, file,
                         entry.Style() == YAML::EmitterStyle::Flow);
    }
    const QString pair = key + ": " + value;
    if (entry.Style() == YAML::EmitterStyle::Flow) {
        // After the mapping's last element: "{name: a, params: 2e6, key: value}".
        const int open = int(yaml.indexOf(u'{', offsetOf(yaml, t, entry.Mark())));
        return {flowSequenceEnd(yaml, open, file, entry.Mark().line).second, 0, ", " + pair};
    }
    // A block mapping: a line after its last one, indented as its keys. Its last value must
    // end on its key's line.
    std::size_t lastLine = 0;
    int column = 0;
    for (auto it = entry.begin(); it != entry.end(); ++it) {
        if (!it->second.IsScalar() && !it->second.IsNull() &&
            it->second.Style() != YAML::EmitterStyle::Flow) {
            failAt(file, it->first, key,
                   "the designer adds a key to a model entry whose values are on their keys' "
                   "lines; this one is not, so edit its text");
        }
        lastLine = std::max(lastLine, std::size_t(it->first.Mark().line));
        column = it->first.Mark().column;
    }
    const int end = lastLine + 1 < t.starts.size() ? t.starts[lastLine + 1] : int(yaml.size());
    return insertAt(yaml, end, QString(column, u' ') + pair + "\n");
}

} // namespace commprof::matrix
