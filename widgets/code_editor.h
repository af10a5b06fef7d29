// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A plain-text editor with line numbers in a gutter (the error's line marked there too) and a
// way to bring a line into view without moving the user's cursor.

#include <QPlainTextEdit>

namespace commprof::widgets {

class CodeEditor : public QPlainTextEdit {
    Q_OBJECT
public:
    explicit CodeEditor(QWidget* parent = nullptr);
    int gutterWidth() const;
    void setMarkedLine(int line); // 1-based; 0 clears
    int markedLine() const { return markedLine_; }
    // Scrolls so the 1-based line is visible; the cursor stays where it is.
    void revealLine(int line);
    // Puts the cursor at a 1-based line and column, visible and focused.
    void goTo(int line, int column);
    // The 1-based number of the first line shown.
    int firstVisibleLine() const;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    friend class LineNumberGutter;
    void paintGutter(QPaintEvent* event);
    QWidget* gutter_;
    int markedLine_ = 0;
};

} // namespace commprof::widgets
