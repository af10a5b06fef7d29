// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One page per journey (design, run, inspect, results, probe), as an IDE's modes: a tab bar
// above a stack. Each page is built from splitters; the page remembers their sizes and which of
// its side panes are shown, under its own name in the settings, so arranging one journey never
// disturbs another. Panes that may be hidden get a checkable action for the View menu.

#include <QList>
#include <QString>
#include <QWidget>

#include <vector>

class QAction;
class QSettings;
class QSplitter;
class QStackedWidget;
class QTabBar;

namespace commprof::widgets {

class Workspaces : public QWidget {
    Q_OBJECT
public:
    explicit Workspaces(QWidget* parent = nullptr);

    // name: the settings key and object name; title: the tab's text (with its mnemonic).
    void addWorkspace(const QString& name, const QString& title, QWidget* page);
    // A pane of a workspace that the user may hide (View > title); shown by default.
    void addPane(const QString& workspace, const QString& title, QWidget* pane);

    QStringList names() const;
    QString current() const;
    void setCurrent(const QString& name);
    QWidget* page(const QString& name) const;
    QTabBar* tabBar() const { return tabs_; }
    QList<QAction*> paneActions(const QString& workspace) const;

    // Every page's splitter sizes and hidden panes, each under "workspaces/<name>/".
    void save(QSettings& settings) const;
    // Pages without a saved layout get the default proportions once shown.
    void restore(const QSettings& settings);
    // Back to the default proportions with every pane shown, for the current page.
    void resetCurrent();

signals:
    void currentChanged(const QString& name);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    struct Pane {
        QWidget* widget = nullptr;
        QAction* action = nullptr;
    };
    struct Workspace {
        QString name;
        QWidget* page = nullptr;
        std::vector<Pane> panes;
        bool defaultsPending = true;
    };
    template <class Self> static auto* find(Self& self, const QString& name); // null: none
    void applyDefaults(Workspace& w);
    static QList<QSplitter*> splittersOf(QWidget* page);

    QTabBar* tabs_ = nullptr;
    QStackedWidget* stack_ = nullptr;
    std::vector<Workspace> workspaces_;
};

} // namespace commprof::widgets
