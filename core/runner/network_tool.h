// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Runs iproute2's ip or tc for the emulated hosts (runner/host_network.h): in this machine's
// namespaces as root, or inside a keeper's namespaces (runner/user_namespace_hosts.h) through a
// child modifier that joins them before exec.

#include <QString>
#include <QStringList>

#include <functional>

namespace commprof::runner {

// Runs `tool` with `args`, `enter` (if set) run in the child before exec. Empty on success,
// else the command and what it or the namespace setup said.
QString runNetworkTool(const QString& tool, const QStringList& args,
                       const std::function<void()>& enter = {});

} // namespace commprof::runner
