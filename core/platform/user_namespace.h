// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Namespaces of commprof's own for a normal user (runner/user_namespace_hosts.h): a child
// process becomes root of a new, unprivileged user namespace (its uid and gid mapped to 0 and
// nothing else), with a mount namespace of its own (a private tmpfs on /run, where `ip netns`
// keeps its names) and a network namespace of its own (where veth pairs are made). Whatever is
// made in them is the kernel's to free when the last process in them ends; this machine's own
// namespaces are never changed.
//
// The child-side functions run after fork and before exec (QProcess's child modifier): they
// call only async-signal-safe functions and report a failure as one "STEP ERRNO" line on
// stderr, which namespaceSetupFailure() turns into words in the parent.

#include <QByteArray>
#include <QString>

namespace commprof::platform {

// The exit code of a child whose namespace setup failed.
constexpr int kNamespaceSetupExit = 121;

// The uid and gid maps a child writes, formatted before fork: formatting after it is not
// async-signal-safe.
struct OwnNamespaceMaps {
    char uidMap[32] = {};
    char gidMap[32] = {};
};
OwnNamespaceMaps ownNamespaceMaps();

// In a child after fork: new user, mount and network namespaces, the maps, every mount made
// private and a tmpfs on /run with an empty /run/netns. Returns only on success.
void enterOwnNamespacesOrExit(const OwnNamespaceMaps& maps);

// In a child after fork: joins the user namespace `userFd` (root in it, so the rest is
// allowed), then the mount namespace `mountFd` and the network namespace `netFd`, each where it
// is >= 0. Returns only on success.
void joinNamespacesOrExit(int userFd, int mountFd, int netFd);

// "STEP: why" from a child's stderr when it holds the line one of the above wrote, else empty.
QString namespaceSetupFailure(const QByteArray& stderrText);

// Why a normal user cannot make such namespaces here, or empty: tried once in a child process
// that makes them and ends (the kernel frees them), then remembered for the process' life.
QString userNamespaceRefusal();

} // namespace commprof::platform
