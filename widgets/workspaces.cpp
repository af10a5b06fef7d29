// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspaces.h"

#include "layout_helpers.h"
#include "spec/mapped.h"

#include <QAction>
#include <QEvent>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabBar>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

namespace commprof::widgets {

template <class Self> auto* Workspaces::find(Self& self, const QString& name) {
    const auto it = std::ranges::find(self.workspaces_, name, &Workspace::name);
    return it == self.workspaces_.end() ? nullptr : &*it;
}

Workspaces::Workspaces(QWidget* parent) : QWidget(parent) {
    tabs_ = new QTabBar(this);
    tabs_->setDocumentMode(true);
    tabs_->setExpanding(false);
    tabs_->setDrawBase(true);
    stack_ = new QStackedWidget(this);
    auto* layout = bareLayout<QVBoxLayout>(this, 0);
    layout->addWidget(tabs_);
    layout->addWidget(stack_, 1);
    stack_->installEventFilter(this); // its size goes to the hidden pages too
    connect(tabs_, &QTabBar::currentChanged, this, [this](int i) {
        if (i < 0 || i >= int(workspaces_.size())) {
            return;
        }
        stack_->setCurrentIndex(i);
        emit currentChanged(workspaces_[std::size_t(i)].name);
    });
}

void Workspaces::addWorkspace(const QString& name, const QString& title, QWidget* page) {
    page->setObjectName(name + "Workspace");
    stack_->addWidget(page);
    page->setGeometry(stack_->contentsRect()); // as the stack sizes its hidden pages (below)
    tabs_->addTab(title);
    page->installEventFilter(this);
    workspaces_.push_back({name, page, {}, true});
}

void Workspaces::addPane(const QString& workspace, const QString& title, QWidget* pane) {
    Workspace* w = find(*this, workspace);
    if (!w) {
        return;
    }
    auto* action = new QAction(title, this);
    action->setCheckable(true);
    action->setChecked(true);
    connect(action, &QAction::toggled, pane, [this, pane, workspace](bool on) {
        pane->setVisible(on);
        if (on && current() != workspace) {
            setCurrent(workspace); // showing a pane shows where it lives
        }
    });
    w->panes.push_back({pane, action});
}

QStringList Workspaces::names() const {
    return spec::mapped<QStringList>(workspaces_, [](const Workspace& w) { return w.name; });
}

QString Workspaces::current() const {
    const int i = stack_->currentIndex();
    return i < 0 ? QString() : workspaces_[std::size_t(i)].name;
}

void Workspaces::setCurrent(const QString& name) {
    const int i = int(names().indexOf(name));
    if (i >= 0) {
        tabs_->setCurrentIndex(i);
    }
}

QWidget* Workspaces::page(const QString& name) const {
    const Workspace* w = find(*this, name);
    return w ? w->page : nullptr;
}

QList<QAction*> Workspaces::paneActions(const QString& workspace) const {
    const Workspace* w = find(*this, workspace);
    return w ? spec::mapped<QList<QAction*>>(w->panes, [](const Pane& p) { return p.action; })
             : QList<QAction*>{};
}

QList<QSplitter*> Workspaces::splittersOf(QWidget* page) {
    // Creation order is stable from one start to the next, so a state goes back where it was.
    QList<QSplitter*> out;
    if (auto* s = qobject_cast<QSplitter*>(page)) {
        out << s;
    }
    out << page->findChildren<QSplitter*>();
    return out;
}

void Workspaces::save(QSettings& settings) const {
    for (const Workspace& w : workspaces_) {
        settings.beginGroup("workspaces/" + w.name);
        settings.setValue("splitters",
                          spec::mapped<QVariantList>(splittersOf(w.page),
                                                     [](QSplitter* s) { return s->saveState(); }));
        QStringList hidden;
        for (const Pane& p : w.panes) {
            if (!p.action->isChecked()) {
                hidden << p.action->text();
            }
        }
        settings.setValue("hidden", hidden);
        settings.endGroup();
    }
    settings.setValue("workspaces/current", current());
}

void Workspaces::restore(const QSettings& settings) {
    for (Workspace& w : workspaces_) {
        const QString group = "workspaces/" + w.name + "/";
        const QVariantList states = settings.value(group + "splitters").toList();
        const QList<QSplitter*> splitters = splittersOf(w.page);
        // A layout saved by another arrangement of the page would put sizes in the wrong
        // splitters: the defaults then.
        if (states.size() == splitters.size() && !states.isEmpty()) {
            bool ok = true;
            for (int i = 0; i < splitters.size(); ++i) {
                ok = splitters[i]->restoreState(states[i].toByteArray()) && ok;
            }
            w.defaultsPending = !ok;
        }
        const QStringList hidden = settings.value(group + "hidden").toStringList();
        for (const Pane& p : w.panes) {
            p.action->setChecked(!hidden.contains(p.action->text()));
            p.widget->setVisible(p.action->isChecked());
        }
    }
    setCurrent(settings.value("workspaces/current").toString());
}

void Workspaces::resetCurrent() {
    const int i = stack_->currentIndex();
    if (i < 0) {
        return;
    }
    Workspace& w = workspaces_[std::size_t(i)];
    for (const Pane& p : w.panes) {
        p.action->setChecked(true);
        p.widget->show();
    }
    applyDefaults(w);
}

void Workspaces::applyDefaults(Workspace& w) {
    w.defaultsPending = false;
    // Each pane gets its stretch factor's share; a pane without one keeps its size hint.
    for (QSplitter* s : splittersOf(w.page)) {
        const bool horizontal = s->orientation() == Qt::Horizontal;
        const int total = horizontal ? s->width() : s->height();
        QList<int> stretches, hints;
        int fixed = 0;
        int stretchSum = 0;
        for (int i = 0; i < s->count(); ++i) {
            const QWidget* c = s->widget(i);
            const QSizePolicy p = c->sizePolicy();
            const QSize hint = c->sizeHint().expandedTo(c->minimumSizeHint());
            stretches << (horizontal ? p.horizontalStretch() : p.verticalStretch());
            hints << (horizontal ? hint.width() : hint.height());
            fixed += stretches.back() == 0 ? hints.back() : 0;
            stretchSum += stretches.back();
        }
        const int free = std::max(0, total - fixed);
        QList<int> sizes;
        for (int i = 0; i < s->count(); ++i) {
            sizes << (stretches[i] == 0 ? hints[i] : free * stretches[i] / std::max(1, stretchSum));
        }
        s->setSizes(sizes);
    }
}

bool Workspaces::eventFilter(QObject* watched, QEvent* event) {
    if (watched == stack_ && event->type() == QEvent::Resize) {
        // The stack sizes only the page it shows: a view drawn on a hidden page would be laid
        // out at a stale size, even 0 px. Each page gets the stack's size; a hidden one is laid
        // out when it next shows or is grabbed.
        for (const Workspace& w : workspaces_) {
            if (w.page != stack_->currentWidget()) {
                w.page->setGeometry(stack_->contentsRect());
            }
        }
    }
    if (event->type() == QEvent::Show) {
        for (Workspace& w : workspaces_) {
            if (w.page == watched && w.defaultsPending) {
                // Proportions need the page's real size, laid out once it is shown.
                QTimer::singleShot(0, this, [this, name = w.name] {
                    if (Workspace* now = find(*this, name); now && now->defaultsPending) {
                        applyDefaults(*now);
                    }
                });
            }
        }
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace commprof::widgets
