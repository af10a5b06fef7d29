// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Emulated hosts for a cell over a `link` other than loopback (matrix/links.h): each host a
// network namespace of its own, two hosts joined by a veth pair, more by one bridge in a
// namespace of its own, each host's egress shaped by tbf at the link's rate. Addresses are
// link-local (169.254.77.0/24) and live only inside these namespaces, so nothing reaches, or is
// changed in, this machine's own network namespace: its interfaces and qdiscs stay as they
// were. Ranks of one host talk over that host's loopback.
//
// As root the namespaces are this machine's (under /run/netns); as a normal user they live in
// a keeper process' own unprivileged user namespace (runner/user_namespace_hosts.h) and go
// with it, however the runner ends. Either way a record (the owner's pid and start time, the
// names, a keeper's pid and start time) is written before anything is made, so what a runner
// killed with SIGKILL left is found by the next run or by `commprof probe --cleanup`
// (removeLeftoverHosts); nothing a record does not name is touched.

#include "runner/user_namespace_hosts.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>

namespace commprof::runner {

// Where the records live: COMMPROF_LINK_RECORD_DIR, else as root /run/commprof/links, as a
// normal user $XDG_RUNTIME_DIR/commprof/links (else ~/.cache/commprof/links): each user's own.
QString hostRecordDir();

class EmulatedHosts {
public:
    EmulatedHosts() = default;
    EmulatedHosts(const EmulatedHosts&) = delete;
    EmulatedHosts& operator=(const EmulatedHosts&) = delete;
    ~EmulatedHosts();

    // Makes `hosts` hosts joined at `link` ("1gbit"), their names carrying `runId`. Empty on
    // success, else why not (and whatever was made is removed again).
    QString build(const QString& runId, const QString& link, int hosts);
    // Removes every namespace (with its links and qdiscs) and the record; safe to call twice.
    void tearDown();

    QString namespaceOf(int host) const { return namespaces_.value(host); } // under /run/netns
    static QString addressOf(int host); // what its ranks bind: 169.254.77.(host + 1)
    // What a rank of `host` opens to join its network namespace, and first, in the user
    // namespace mode, the user namespace to join (empty as root).
    QString networkNamespacePath(int host) const;
    QString userNamespacePath() const;
    // Runs ip or tc where the hosts' names resolve. Empty on success, else what failed.
    QString runTool(const QString& tool, const QStringList& args) const;

private:
    QString record_; // the record's path
    QStringList namespaces_;
    std::unique_ptr<NamespaceKeeper> keeper_; // the user namespace mode's; null as root
};

// Removes the namespaces named in records whose owner no longer runs, and those records;
// returns how many namespaces were removed (with `remove` false, how many would be, and nothing
// changes). `log` receives a line for each.
int removeLeftoverHosts(const std::function<void(const QString&)>& log = {}, bool remove = true);

// Whether links can be emulated here, how, and which shapers the kernel has, tried in a scratch
// namespace (removed again): {"available": bool, "mode": "root" | "user_namespace" |
// "unavailable", "reason": "...", "shapers": {"tbf": true, "htb": true, "netem": false, ...}}.
QJsonObject probeLinkEmulation();

} // namespace commprof::runner
