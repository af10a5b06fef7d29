// SPDX-License-Identifier: GPL-3.0-or-later
#include "code_editor.h"

#include <QPainter>
#include <QScrollBar>
#include <QTextBlock>

namespace commprof::widgets {

class LineNumberGutter : public QWidget {
public:
    explicit LineNumberGutter(CodeEditor* editor) : QWidget(editor), editor_(editor) {}
    QSize sizeHint() const override { return {editor_->gutterWidth(), 0}; }

protected:
    void paintEvent(QPaintEvent* event) override { editor_->paintGutter(event); }

private:
    CodeEditor* editor_;
};

CodeEditor::CodeEditor(QWidget* parent) : QPlainTextEdit(parent) {
    gutter_ = new LineNumberGutter(this);
    QFont mono("DejaVu Sans Mono");
    mono.setStyleHint(QFont::Monospace);
    setFont(mono);
    setLineWrapMode(QPlainTextEdit::NoWrap);
    connect(this, &QPlainTextEdit::blockCountChanged, this,
            [this] { setViewportMargins(gutterWidth(), 0, 0, 0); });
    connect(this, &QPlainTextEdit::updateRequest, this, [this](const QRect& rect, int dy) {
        if (dy != 0) {
            gutter_->scroll(0, dy);
        } else {
            gutter_->update(0, rect.y(), gutter_->width(), rect.height());
        }
    });
    setViewportMargins(gutterWidth(), 0, 0, 0);
}

int CodeEditor::gutterWidth() const {
    const int digits = int(QString::number(std::max(1, blockCount())).size());
    return 10 + fontMetrics().horizontalAdvance(QLatin1Char('9')) * std::max(2, digits);
}

void CodeEditor::setMarkedLine(int line) {
    if (line != markedLine_) {
        markedLine_ = line;
        gutter_->update();
    }
}

void CodeEditor::revealLine(int line) {
    const QTextBlock block = document()->findBlockByNumber(line - 1);
    if (!block.isValid()) {
        return;
    }
    const int first = firstVisibleLine();
    const int shown =
        std::max(1, int(viewport()->height() / std::max(1.0, blockBoundingRect(block).height())));
    if (line < first || line >= first + shown - 1) {
        // QPlainTextEdit scrolls by lines: put the line a third of the way down.
        verticalScrollBar()->setValue(std::max(0, line - 1 - shown / 3));
    }
}

void CodeEditor::goTo(int line, int column) {
    const QTextBlock block = document()->findBlockByNumber(line - 1);
    if (!block.isValid()) {
        return;
    }
    QTextCursor c(block);
    c.movePosition(QTextCursor::Right, QTextCursor::MoveAnchor,
                   std::clamp(column - 1, 0, std::max(0, block.length() - 1)));
    setTextCursor(c);
    centerCursor();
    setFocus();
}

int CodeEditor::firstVisibleLine() const {
    return firstVisibleBlock().blockNumber() + 1;
}

void CodeEditor::resizeEvent(QResizeEvent* event) {
    QPlainTextEdit::resizeEvent(event);
    const QRect r = contentsRect();
    gutter_->setGeometry(QRect(r.left(), r.top(), gutterWidth(), r.height()));
}

void CodeEditor::paintGutter(QPaintEvent* event) {
    QPainter p(gutter_);
    p.fillRect(event->rect(), palette().window());
    QTextBlock block = firstVisibleBlock();
    int top = int(blockBoundingGeometry(block).translated(contentOffset()).top());
    const int lineHeight = fontMetrics().height();
    while (block.isValid() && top <= event->rect().bottom()) {
        const int number = block.blockNumber() + 1;
        if (block.isVisible()) {
            const QRect box(0, top, gutter_->width() - 4, lineHeight);
            if (number == markedLine_) {
                p.fillRect(QRect(0, top, gutter_->width(), lineHeight), QColor(255, 190, 190));
                p.setPen(QColor(160, 0, 0));
            } else {
                p.setPen(palette().color(QPalette::PlaceholderText));
            }
            p.drawText(box, Qt::AlignRight | Qt::AlignVCenter, QString::number(number));
        }
        top += int(blockBoundingRect(block).height());
        block = block.next();
    }
}

} // namespace commprof::widgets
