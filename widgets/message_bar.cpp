// SPDX-License-Identifier: GPL-3.0-or-later
#include "message_bar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>

namespace commprof::widgets {
namespace {

struct Look {
    QString background, border;
    QStyle::StandardPixmap icon;
};

Look lookOf(MessageBar::Severity s) {
    switch (s) {
    case MessageBar::Severity::Error:
        return {"#fde8e8", "#d04040", QStyle::SP_MessageBoxCritical};
    case MessageBar::Severity::Warning:
        return {"#fff4dc", "#d09a20", QStyle::SP_MessageBoxWarning};
    case MessageBar::Severity::Information:
        break;
    }
    return {"#e6f0fb", "#4a82c0", QStyle::SP_MessageBoxInformation};
}

} // namespace

MessageBar::MessageBar(QWidget* parent) : QWidget(parent) {
    stack_ = new QVBoxLayout(this);
    stack_->setContentsMargins(4, 2, 4, 2);
    stack_->setSpacing(2);
    setVisible(false);
}

void MessageBar::show(Severity severity, const QString& title, const QString& text,
                      const QString& key) {
    dismiss(key);
    const Look look = lookOf(severity);
    auto* frame = new QFrame(this);
    frame->setObjectName("message");
    frame->setProperty("key", key);
    frame->setProperty("message", title.isEmpty() ? text : title + ": " + text);
    frame->setStyleSheet(QString("QFrame#message { background: %1; border: 1px solid %2; "
                                 "border-radius: 3px; }")
                             .arg(look.background, look.border));
    auto* icon = new QLabel(frame);
    icon->setPixmap(style()->standardIcon(look.icon).pixmap(20, 20));
    auto* label = new QLabel(frame);
    label->setTextFormat(Qt::RichText);
    label->setText(QString("<b>%1</b>%2%3")
                       .arg(title.toHtmlEscaped(), title.isEmpty() ? "" : "<br>",
                            text.toHtmlEscaped().replace('\n', "<br>")));
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    auto* close = new QToolButton(frame);
    close->setAutoRaise(true);
    close->setIcon(style()->standardIcon(QStyle::SP_TitleBarCloseButton));
    close->setToolTip("Dismiss");
    auto* row = new QHBoxLayout(frame);
    row->setContentsMargins(6, 4, 4, 4);
    row->addWidget(icon, 0, Qt::AlignTop);
    row->addWidget(label, 1);
    row->addWidget(close, 0, Qt::AlignTop);
    connect(close, &QToolButton::clicked, this, [this, frame] { remove(frame); });
    stack_->insertWidget(0, frame);
    // Old messages make room: the newest few stay on screen.
    while (stack_->count() > kMaxShown) {
        QWidget* oldest = stack_->itemAt(stack_->count() - 1)->widget();
        stack_->removeWidget(oldest);
        oldest->deleteLater();
    }
    setVisible(true);
    emit changed();
}

void MessageBar::remove(QWidget* frame) {
    frame->deleteLater();
    stack_->removeWidget(frame);
    setVisible(stack_->count() > 0);
    emit changed();
}

void MessageBar::dismiss(const QString& key) {
    if (key.isEmpty()) {
        return; // a message said without a key is closed by the user alone
    }
    for (int i = 0; i < stack_->count(); ++i) {
        if (QWidget* frame = stack_->itemAt(i)->widget(); frame->property("key") == key) {
            remove(frame);
            return; // one message a key
        }
    }
}

void MessageBar::clearAll() {
    while (stack_->count() > 0) {
        QWidget* w = stack_->itemAt(0)->widget();
        stack_->removeWidget(w);
        w->deleteLater();
    }
    setVisible(false);
    emit changed();
}

QStringList MessageBar::shownMessages() const {
    QStringList out;
    for (int i = 0; i < stack_->count(); ++i) {
        out << stack_->itemAt(i)->widget()->property("message").toString();
    }
    return out;
}

int MessageBar::count() const {
    return stack_->count();
}

} // namespace commprof::widgets
