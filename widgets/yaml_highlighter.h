// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// YAML syntax highlighting for the matrix editor, with the line of the current error marked.

#include <QSyntaxHighlighter>

namespace commprof::widgets {

class YamlHighlighter : public QSyntaxHighlighter {
    Q_OBJECT
public:
    using QSyntaxHighlighter::QSyntaxHighlighter;
    // 1-based line and column of the error; line 0 clears.
    void setError(int line, int column);
    int errorLine() const { return errorLine_; }
    int errorColumn() const { return errorColumn_; }

protected:
    void highlightBlock(const QString& text) override;

private:
    int errorLine_ = 0;
    int errorColumn_ = 0;
};

} // namespace commprof::widgets
