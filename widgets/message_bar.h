// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The one place user-facing errors and warnings appear: a bar above the views with the full
// text (selectable, never cut), kept until the user closes it. Several messages stack, newest
// first. The status bar is only for transient information.

#include <QFrame>
#include <QStringList>

class QVBoxLayout;

namespace commprof::widgets {

class MessageBar : public QWidget {
    Q_OBJECT
public:
    enum class Severity { Error, Warning, Information };
    static constexpr int kMaxShown = 4;

    explicit MessageBar(QWidget* parent = nullptr);
    // A message with a `key` replaces the one shown with that key: a warning about a state
    // (the matrix's cap) is one message, not one per time it was said.
    void show(Severity severity, const QString& title, const QString& text,
              const QString& key = {});
    void error(const QString& title, const QString& text) { show(Severity::Error, title, text); }
    void warning(const QString& title, const QString& text, const QString& key = {}) {
        show(Severity::Warning, title, text, key);
    }
    // Takes away the message shown with `key`, where there is one: what it said no longer holds.
    void dismiss(const QString& key);
    void clearAll();
    // The messages on screen, newest first, as "title: text".
    QStringList shownMessages() const;
    int count() const;

signals:
    void changed();

private:
    void remove(QWidget* frame);
    QVBoxLayout* stack_;
};

} // namespace commprof::widgets
