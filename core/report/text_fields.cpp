// SPDX-License-Identifier: GPL-3.0-or-later
#include "text_fields.h"

#include <algorithm>
#include <iterator>
#include <utility>

namespace commprof::report {

QString csvField(const QString& text) {
    QString s = text;
    if (!s.isEmpty() && QString("=+-@\t\r").contains(s.front())) {
        s.prepend('\'');
    }
    return s.contains(',') || s.contains('"') || s.contains('\n') || s.contains('\r')
               ? '"' + s.replace("\"", "\"\"") + '"'
               : s;
}

namespace {

using Command = std::pair<char32_t, const char*>;

// The accents LaTeX's own OT1 encoding has commands for, by their Unicode combining mark.
constexpr Command kAccents[] = {{0x300, "\\`"}, {0x301, "\\'"}, {0x302, "\\^"}, {0x303, "\\~"},
                                {0x304, "\\="}, {0x306, "\\u"}, {0x307, "\\."}, {0x308, "\\\""},
                                {0x30A, "\\r"}, {0x30B, "\\H"}, {0x30C, "\\v"}, {0x323, "\\d"},
                                {0x327, "\\c"}, {0x331, "\\b"}};

// Letters with a command of their own in LaTeX's kernel.
constexpr Command kLetters[] = {
    {0xDF, "\\ss{}"},  {0xE6, "\\ae{}"},  {0xC6, "\\AE{}"}, {0xF8, "\\o{}"},  {0xD8, "\\O{}"},
    {0x153, "\\oe{}"}, {0x152, "\\OE{}"}, {0x142, "\\l{}"}, {0x141, "\\L{}"}, {0x131, "\\i{}"}};

// ASCII characters TeX reads as commands and has no escape with a backslash for.
constexpr Command kAsciiWords[] = {
    {'\\', "\\textbackslash{}"}, {'~', "\\textasciitilde{}"}, {'^', "\\textasciicircum{}"}};

// The command of `c` in `table`; nullptr for none.
template <std::size_t N> const char* commandOf(const Command (&table)[N], char32_t c) {
    const auto* it = std::ranges::find(table, c, &Command::first);
    return it == std::end(table) ? nullptr : it->second;
}

QString asciiTex(char32_t c) {
    if (const char* word = commandOf(kAsciiWords, c)) {
        return word;
    }
    const QChar ch{char16_t(c)};
    return QString("{}$&#_%").contains(ch) ? QString('\\') + ch : QString(ch);
}

// é is e with an acute accent: \'{e}. Empty when the character is not an ASCII letter with
// accents LaTeX has commands for.
QString accented(char32_t c) {
    const QList<uint> parts =
        QString::fromUcs4(&c, 1).normalized(QString::NormalizationForm_D).toUcs4();
    if (parts.size() < 2 || parts.front() >= 0x80 || !QChar::isLetter(parts.front())) {
        return {};
    }
    QString out = QString(QChar(char16_t(parts.front())));
    for (qsizetype i = 1; i < parts.size(); ++i) {
        const char* accent = commandOf(kAccents, parts[i]);
        if (!accent) {
            return {};
        }
        out = QString("%1{%2}").arg(accent, out);
    }
    return out;
}

} // namespace

QString codePointText(char32_t c) {
    return QString("[U+%1]").arg(QString::number(uint(c), 16).toUpper(), 4, QChar('0'));
}

QString texText(const QString& text) {
    QString out;
    for (const char32_t c : text.normalized(QString::NormalizationForm_C).toUcs4()) {
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') {
            // A line break or form feed would end the macro's paragraph; TeX reads a run of
            // spaces as one, and so the value says what TeX holds.
            if (!out.endsWith(' ')) {
                out += ' ';
            }
        } else if (c >= 0x20 && c < 0x7F) {
            out += asciiTex(c);
        } else if (const char* letter = commandOf(kLetters, c)) {
            out += letter;
        } else if (const QString a = accented(c); !a.isEmpty()) {
            out += a;
        } else {
            out += codePointText(c); // a control character, or one pdflatex has no glyph for
        }
    }
    return out;
}

} // namespace commprof::report
