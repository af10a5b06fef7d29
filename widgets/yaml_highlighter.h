#pragma once
// YAML syntax highlighting for the matrix editor, with the line of the current error marked.

#include <QSyntaxHighlighter>

namespace commprof::widgets {

class YamlHighlighter : public QSyntaxHighlighter {
    Q_OBJECT
public:
    explicit YamlHighlighter(QTextDocument* document);
    void setErrorLine(int line); // 1-based; 0 clears
    int errorLine() const { return errorLine_; }

protected:
    void highlightBlock(const QString& text) override;

private:
    int errorLine_ = 0;
};

} // namespace commprof::widgets
