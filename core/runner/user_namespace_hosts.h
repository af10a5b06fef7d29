// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Emulated hosts for a normal user (runner/host_network.h): a keeper process per cell is root
// of an unprivileged user namespace of its own, with a mount namespace (a private /run, where
// `ip netns` names the hosts) and a network namespace (where the veth pairs are made) of its
// own (platform/user_namespace.h). Every ip and tc step runs inside those namespaces, as their
// root; a rank joins the keeper's user namespace, then its host's network namespace.
//
// Nothing outlives the keeper: the hosts' namespaces are bind mounts in its mount namespace
// only, so when it ends (and the ranks in them have ended) the kernel frees them with their
// links and qdiscs, and nothing is ever made in this machine's own namespaces. It ends with
// the runner however the runner ends: its stdin is a pipe that only the runner holds (end of
// file when the runner dies, SIGKILL included), and PR_SET_PDEATHSIG besides. Its pid and
// start time go in the cell's record all the same, so the next run or `commprof probe
// --cleanup` ends one that somehow outlived its runner (endLeftover).

#include <QString>
#include <QStringList>

#include <functional>
#include <memory>

class QProcess;

namespace commprof::runner {

// Runs iproute2's `tool` (ip, tc) with `args`: in this machine's namespaces as root, or with
// `enter` run in the child before exec to join a keeper's. Empty on success, else the command
// and what it or the namespace setup said.
QString runNetworkTool(const QString& tool, const QStringList& args,
                       const std::function<void()>& enter = {});

class NamespaceKeeper {
public:
    NamespaceKeeper() = default;
    NamespaceKeeper(const NamespaceKeeper&) = delete;
    NamespaceKeeper& operator=(const NamespaceKeeper&) = delete;
    ~NamespaceKeeper();

    // Starts the keeper and waits until its namespaces are made. Empty on success, else why not.
    QString start();
    // Ends it (its namespaces, and all made in them, go with it) and waits for it.
    void stop();

    qint64 pid() const { return pid_; }
    quint64 startTime() const { return startTime_; }
    // Runs ip or tc inside the keeper's namespaces. Empty on success, else what failed.
    QString run(const QString& tool, const QStringList& args) const;
    // What a rank opens to join the keeper's user namespace, and then host `name`'s network
    // namespace (a file in the keeper's /run/netns, reached through its root).
    QString userNamespacePath() const;
    QString networkNamespacePath(const QString& name) const;

    // Ends the keeper `pid` a runner that is gone left, when it still runs with that start time,
    // belongs to this user and is in a user namespace other than this process' own. True when
    // one was ended.
    static bool endLeftover(qint64 pid, quint64 startTime);

private:
    std::unique_ptr<QProcess> proc_;
    qint64 pid_ = 0;
    quint64 startTime_ = 0;
    // The keeper's namespaces, held open by the runner so each tool joins them by descriptor.
    int userFd_ = -1;
    int mountFd_ = -1;
    int netFd_ = -1;
};

} // namespace commprof::runner
