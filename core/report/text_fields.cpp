// SPDX-License-Identifier: GPL-3.0-or-later
#include "text_fields.h"

namespace commprof::report {

QString csvField(const QString& text) {
    QString s = text;
    if (!s.isEmpty() && QString("=+-@\t\r").contains(s.front())) {
        s.prepend('\'');
    }
    if (s.contains(',') || s.contains('"') || s.contains('\n') || s.contains('\r')) {
        return '"' + s.replace("\"", "\"\"") + '"';
    }
    return s;
}

namespace {

// The accents LaTeX's own OT1 encoding has commands for, by their Unicode combining mark.
const char* accentCommand(char32_t mark) {
    switch (mark) {
    case 0x300:
        return "\\`";
    case 0x301:
        return "\\'";
    case 0x302:
        return "\\^";
    case 0x303:
        return "\\~";
    case 0x304:
        return "\\=";
    case 0x306:
        return "\\u";
    case 0x307:
        return "\\.";
    case 0x308:
        return "\\\"";
    case 0x30A:
        return "\\r";
    case 0x30B:
        return "\\H";
    case 0x30C:
        return "\\v";
    case 0x323:
        return "\\d";
    case 0x327:
        return "\\c";
    case 0x331:
        return "\\b";
    default:
        return nullptr;
    }
}

// Letters with a command of their own in LaTeX's kernel.
const char* letterCommand(char32_t c) {
    switch (c) {
    case 0xDF:
        return "\\ss{}";
    case 0xE6:
        return "\\ae{}";
    case 0xC6:
        return "\\AE{}";
    case 0xF8:
        return "\\o{}";
    case 0xD8:
        return "\\O{}";
    case 0x153:
        return "\\oe{}";
    case 0x152:
        return "\\OE{}";
    case 0x142:
        return "\\l{}";
    case 0x141:
        return "\\L{}";
    case 0x131:
        return "\\i{}";
    default:
        return nullptr;
    }
}

QString asciiTex(char32_t c) {
    switch (c) {
    case '\\':
        return "\\textbackslash{}";
    case '~':
        return "\\textasciitilde{}";
    case '^':
        return "\\textasciicircum{}";
    case '{':
    case '}':
    case '$':
    case '&':
    case '#':
    case '_':
    case '%':
        return QString('\\') + QChar(char16_t(c));
    default:
        return QString(QChar(char16_t(c)));
    }
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
        const char* accent = accentCommand(parts[i]);
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
        } else if (const char* letter = letterCommand(c)) {
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
