// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Emulated hosts for a cell over a `link` other than loopback (matrix/links.h): each host a
// network namespace of its own, two hosts joined by a veth pair, more by one bridge in a
// namespace of its own, each host's egress shaped by tbf at the link's rate. Addresses are
// link-local (169.254.77.0/24) and live only inside these namespaces, so nothing reaches, or is
// changed in, this machine's own network namespace: its interfaces and qdiscs stay as they
// were. Ranks of one host talk over that host's loopback.
//
// Every namespace is written to a record (the owner's pid and start time, the names) before
// it is made, so what a runner killed with SIGKILL left is found by the next run or by
// `commprof probe --cleanup` (removeLeftoverHosts); nothing a record does not name is touched.

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <functional>

namespace commprof::runner {

// Where the records live: COMMPROF_LINK_RECORD_DIR, else /run/commprof/links.
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

    bool built() const { return !namespaces_.isEmpty(); }
    int hosts() const { return hosts_; }
    QString namespaceOf(int host) const; // its name under /run/netns
    static QString addressOf(int host);  // what its ranks bind: 169.254.77.(host + 1)

private:
    QString record_; // the record's path
    QStringList namespaces_;
    int hosts_ = 0;
};

// Removes the namespaces named in records whose owner no longer runs, and those records;
// returns how many namespaces were removed (with `remove` false, how many would be, and nothing
// changes). `log` receives a line for each.
int removeLeftoverHosts(const std::function<void(const QString&)>& log = {}, bool remove = true);

// Whether links can be emulated here and which shapers the kernel has, tried in a scratch
// namespace (removed again): {"available": bool, "reason": "...", "shapers": {"tbf": true,
// "htb": true, "netem": false, ...}}.
QJsonObject probeLinkEmulation();

} // namespace commprof::runner
