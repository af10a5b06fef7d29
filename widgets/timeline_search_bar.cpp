// SPDX-License-Identifier: GPL-3.0-or-later
#include "timeline_search_bar.h"

#include "layout_helpers.h"

#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QTimer>
#include <QToolButton>

namespace commprof::widgets {

TimelineSearchBar::TimelineSearchBar(QWidget* parent) : QWidget(parent) {
    edit_ = new QLineEdit(this);
    edit_->setPlaceholderText("Find slices by name (Ctrl+F)");
    edit_->setClearButtonEnabled(true);
    edit_->setMinimumWidth(180);
    regex_ = new QToolButton(this);
    regex_->setText(".*");
    regex_->setCheckable(true);
    regex_->setToolTip("Regular expression");
    prev_ = new QToolButton(this);
    prev_->setArrowType(Qt::LeftArrow);
    prev_->setToolTip("Previous match (Shift+Enter)");
    next_ = new QToolButton(this);
    next_->setArrowType(Qt::RightArrow);
    next_->setToolTip("Next match (Enter)");
    count_ = new QLabel(this);
    count_->setMinimumWidth(90);
    debounce_ = new QTimer(this);
    debounce_->setSingleShot(true);
    debounce_->setInterval(kDebounceMs);

    auto* layout = bareLayout<QHBoxLayout>(this, 2);
    layout->addWidget(edit_, 1);
    for (QWidget* w : std::initializer_list<QWidget*>{regex_, prev_, next_, count_}) {
        layout->addWidget(w);
    }

    auto emitSearch = [this] { emit searchChanged(edit_->text(), regex_->isChecked()); };
    connect(debounce_, &QTimer::timeout, this, emitSearch);
    connect(edit_, &QLineEdit::textChanged, debounce_, qOverload<>(&QTimer::start));
    connect(regex_, &QToolButton::toggled, this, emitSearch);
    connect(prev_, &QToolButton::clicked, this, &TimelineSearchBar::previousRequested);
    connect(next_, &QToolButton::clicked, this, &TimelineSearchBar::nextRequested);
    connect(edit_, &QLineEdit::returnPressed, this, [this, emitSearch] {
        if (debounce_->isActive()) {
            debounce_->stop();
            emitSearch();
        }
        if (QGuiApplication::keyboardModifiers() & Qt::ShiftModifier) {
            emit previousRequested();
        } else {
            emit nextRequested();
        }
    });
}

QString TimelineSearchBar::text() const {
    return edit_->text();
}

bool TimelineSearchBar::regex() const {
    return regex_->isChecked();
}

void TimelineSearchBar::setQuery(const QString& text, bool regex) {
    const QSignalBlocker block(regex_);
    regex_->setChecked(regex);
    edit_->setText(text);
    debounce_->stop();
    emit searchChanged(text, regex);
}

void TimelineSearchBar::setResult(std::size_t count, std::size_t current, const QString& error) {
    count_->setToolTip(error);
    count_->setStyleSheet(error.isEmpty() ? QString() : "color:#b00020");
    if (!error.isEmpty()) {
        count_->setText("error");
    } else if (edit_->text().isEmpty()) {
        count_->clear();
    } else if (count == 0) {
        count_->setText("no match");
    } else if (current < count) {
        count_->setText(QString("%1 of %2").arg(current + 1).arg(count));
    } else {
        count_->setText(QString("%1 matches").arg(count));
    }
}

QString TimelineSearchBar::resultText() const {
    return count_->text();
}

void TimelineSearchBar::focusSearch() {
    edit_->setFocus(Qt::ShortcutFocusReason);
    edit_->selectAll();
}

} // namespace commprof::widgets
