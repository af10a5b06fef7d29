// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Whether this machine may emulate links (matrix/links.h) at all, and how, asked cheaply enough
// for every plan: as root directly, as a normal user inside an unprivileged user namespace of
// commprof's own (platform/user_namespace.h) where the kernel allows one, and with iproute2's ip
// and tc either way. Which shapers the kernel has is the probe's question
// (runner/host_network.h), since answering it makes a namespace.

#include <QString>

namespace commprof::platform {

enum class LinkEmulationMode {
    Unavailable,
    Root,          // namespaces in this machine's /run/netns, recorded in /run/commprof/links
    UserNamespace, // namespaces that live in a keeper process' own namespaces only
};

struct LinkEmulation {
    LinkEmulationMode mode = LinkEmulationMode::Unavailable;
    QString refusal; // why not, when Unavailable
};

LinkEmulation linkEmulation();
// Where iproute2's `tool` (ip, tc) is: on PATH, else in /usr/sbin or /sbin (not on a normal
// user's PATH); empty when it is not installed.
QString networkToolPath(const QString& tool);
// "root", "user_namespace" or "unavailable", as probe --json writes it.
QString linkEmulationModeName(LinkEmulationMode mode);

} // namespace commprof::platform
