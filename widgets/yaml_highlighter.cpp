// SPDX-License-Identifier: GPL-3.0-or-later
#include "yaml_highlighter.h"

#include <QRegularExpression>

namespace commprof::widgets {

void YamlHighlighter::setError(int line, int column) {
    if (line != errorLine_ || column != errorColumn_) {
        errorLine_ = line;
        errorColumn_ = column;
        rehighlight();
    }
}

void YamlHighlighter::highlightBlock(const QString& text) {
    static const QRegularExpression key("([A-Za-z_][A-Za-z0-9_]*)\\s*:");
    static const QRegularExpression number("\\b-?[0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]+)?\\b");
    static const QRegularExpression comment("#.*$");
    QTextCharFormat keyFormat, numberFormat, commentFormat;
    keyFormat.setForeground(QColor(0, 90, 160));
    keyFormat.setFontWeight(QFont::Bold);
    numberFormat.setForeground(QColor(150, 60, 0));
    commentFormat.setForeground(QColor(120, 120, 120));
    const auto paint = [&](const QRegularExpression& re, int group, const QTextCharFormat& f) {
        for (auto it = re.globalMatch(text); it.hasNext();) {
            const auto m = it.next();
            setFormat(int(m.capturedStart(group)), int(m.capturedLength(group)), f);
        }
    };
    paint(number, 0, numberFormat);
    paint(key, 1, keyFormat);
    paint(comment, 0, commentFormat); // to the line's end: one match at most
    if (errorLine_ > 0 && currentBlock().blockNumber() + 1 == errorLine_) {
        QTextCharFormat error;
        error.setUnderlineStyle(QTextCharFormat::WaveUnderline);
        error.setUnderlineColor(Qt::red);
        error.setBackground(QColor(255, 230, 230));
        setFormat(0, std::max(1, int(text.size())), error);
        // The offending token itself, from the reported column to the end of the word.
        if (errorColumn_ > 0 && errorColumn_ <= text.size()) {
            int end = errorColumn_ - 1;
            while (end < text.size() && (text[end].isLetterOrNumber() || text[end] == '_' ||
                                         text[end] == '.' || text[end] == '-')) {
                ++end;
            }
            QTextCharFormat token = error;
            token.setBackground(QColor(255, 170, 170));
            token.setFontWeight(QFont::Bold);
            setFormat(errorColumn_ - 1, std::max(1, end - errorColumn_ + 1), token);
        }
    }
}

} // namespace commprof::widgets
