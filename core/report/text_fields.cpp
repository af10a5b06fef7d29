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

QString texText(const QString& text) {
    QString out;
    for (const QChar ch : text) {
        switch (ch.unicode()) {
        case '\\':
            out += "\\textbackslash{}";
            break;
        case '~':
            out += "\\textasciitilde{}";
            break;
        case '^':
            out += "\\textasciicircum{}";
            break;
        case '{':
        case '}':
        case '$':
        case '&':
        case '#':
        case '_':
        case '%':
            out += '\\';
            out += ch;
            break;
        default:
            out += ch;
        }
    }
    return out;
}

} // namespace commprof::report
