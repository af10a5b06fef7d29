// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Find slices by name: a substring or, with ".*" on, a regular expression; Enter or the
// arrows step to the next or previous match, and the count says where you are. Display only:
// the inspector runs the search and hands back the result.

#include <QWidget>

class QLabel;
class QLineEdit;
class QTimer;
class QToolButton;

namespace commprof::widgets {

class TimelineSearchBar : public QWidget {
    Q_OBJECT
public:
    static constexpr int kDebounceMs = 200;

    explicit TimelineSearchBar(QWidget* parent = nullptr);
    QString text() const;
    bool regex() const;
    void setQuery(const QString& text, bool regex); // searches at once
    // count matches; current is 0-based, or count when none is current.
    void setResult(std::size_t count, std::size_t current, const QString& error = {});
    QString resultText() const;
    void focusSearch();
    QLineEdit* edit() const { return edit_; }

signals:
    void searchChanged(const QString& text, bool regex);
    void nextRequested();
    void previousRequested();

private:
    QLineEdit* edit_ = nullptr;
    QToolButton* regex_ = nullptr;
    QToolButton* prev_ = nullptr;
    QToolButton* next_ = nullptr;
    QLabel* count_ = nullptr;
    QTimer* debounce_ = nullptr;
};

} // namespace commprof::widgets
