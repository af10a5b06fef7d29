// SPDX-License-Identifier: GPL-3.0-or-later
#include "macro_sheet.h"

#include "report/text_fields.h"

#include <QMap>
#include <QSet>
#include <QStringList>

#include <algorithm>

namespace commprof::report {

QString numberName(int n) {
    static const char* const kDigits[] = {"Zero", "One", "Two",   "Three", "Four",
                                          "Five", "Six", "Seven", "Eight", "Nine"};
    QString out;
    for (const QChar d : QString::number(n)) {
        out += d == '-' ? QString("Minus") : QString(kDigits[d.digitValue()]);
    }
    return out;
}

QString letterName(const QString& text) {
    QString out;
    bool wordStart = true;
    for (const QChar ch : text.normalized(QString::NormalizationForm_D)) {
        if (ch.unicode() < 0x80 && ch.isLetter()) {
            out += wordStart ? ch.toUpper() : ch;
            wordStart = false;
        } else if (ch.unicode() < 0x80 && ch.isDigit()) {
            out += numberName(ch.digitValue());
            wordStart = true;
        } else if (ch.category() != QChar::Mark_NonSpacing) { // é is e and an accent
            wordStart = true;
        }
    }
    return out;
}

QString commentText(const QString& text) {
    QString out;
    for (const char32_t c : text.toUcs4()) {
        if (c < 0x20 || c == 0x7F) {
            out += ' ';
        } else if (c < 0x80) {
            out += QChar(char16_t(c));
        } else {
            out += codePointText(c); // the file stays ASCII, whatever the input encoding
        }
    }
    return out;
}

void MacroSheet::define(const QString& name, const QString& value) {
    lines_.push_back({Line::Own, {}, name, value});
}

void MacroSheet::defineFor(const QString& label, const QString& suffix, const QString& value) {
    lines_.push_back({Line::Labelled, label, suffix, value});
}

QString MacroSheet::tex() const {
    // Names are settled before anything is written, over every line, so a clash with a name
    // defined further down is seen too.
    QSet<QString> taken;
    QStringList labels;
    QMap<QString, QStringList> suffixes;
    for (const Line& l : lines_) {
        if (l.kind == Line::Own) {
            taken.insert(l.name);
        } else if (l.kind == Line::Labelled) {
            if (!suffixes.contains(l.label)) {
                labels << l.label;
            }
            suffixes[l.label] << l.name;
        }
    }
    QMap<QString, QString> base;
    QSet<QString> bases;
    for (const QString& label : labels) {
        QString plain = letterName(label);
        if (plain.isEmpty()) {
            plain = "Unnamed";
        }
        QString name = plain;
        const auto clashes = [&](const QString& candidate) {
            return bases.contains(candidate) ||
                   std::ranges::any_of(suffixes[label], [&](const QString& s) {
                       return taken.contains(candidate + s);
                   });
        };
        for (int k = 1; clashes(name); ++k) {
            name = plain + "Alt" + numberName(k);
        }
        bases.insert(name);
        for (const QString& s : suffixes[label]) {
            taken.insert(name + s);
        }
        base[label] = name;
    }
    QString tex;
    QSet<QString> introduced;
    const auto newcommand = [](const QString& name, const QString& value) {
        return QString("\\newcommand{\\commprof%1}{%2}\n").arg(name, value);
    };
    for (const Line& l : lines_) {
        switch (l.kind) {
        case Line::Comment:
            tex += "% " + commentText(l.label) + "\n";
            break;
        case Line::Own:
            tex += newcommand(l.name, l.value);
            break;
        case Line::Labelled:
            if (!introduced.contains(l.label)) {
                introduced.insert(l.label);
                if (base[l.label] != letterName(l.label)) {
                    tex += "% " +
                           commentText(QString("'%1' is \\commprof%2... here (its spelling "
                                               "clashes with another name)")
                                           .arg(l.label, base[l.label])) +
                           "\n";
                }
            }
            tex += newcommand(base[l.label] + l.name, l.value);
            break;
        }
    }
    return tex;
}

} // namespace commprof::report
