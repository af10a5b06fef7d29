// SPDX-License-Identifier: GPL-3.0-or-later
#include "link_emulation.h"

#include "platform/user_namespace.h"

#include <QStandardPaths>

#include <unistd.h>

namespace commprof::platform {

LinkEmulation linkEmulation() {
    for (const char* tool : {"ip", "tc"}) {
        if (networkToolPath(tool).isEmpty()) {
            return {LinkEmulationMode::Unavailable,
                    QString("'%1' (iproute2) is not installed").arg(tool)};
        }
    }
    // Network namespaces, veth pairs and qdiscs need CAP_NET_ADMIN and CAP_SYS_ADMIN: root has
    // them in the machine's namespaces, a normal user only in a user namespace of its own.
    if (::geteuid() == 0) {
        return {LinkEmulationMode::Root, {}};
    }
    if (const QString why = userNamespaceRefusal(); !why.isEmpty()) {
        return {LinkEmulationMode::Unavailable,
                "emulated links need root or unprivileged user namespaces, and this kernel "
                "refused one (" +
                    why +
                    "; see the sysctls kernel.unprivileged_userns_clone, user.max_user_namespaces "
                    "and kernel.apparmor_restrict_unprivileged_userns); run as root, or use "
                    "link: loopback"};
    }
    return {LinkEmulationMode::UserNamespace, {}};
}

QString networkToolPath(const QString& tool) {
    const QString onPath = QStandardPaths::findExecutable(tool);
    return onPath.isEmpty() ? QStandardPaths::findExecutable(tool, {"/usr/sbin", "/sbin"}) : onPath;
}

QString linkEmulationModeName(LinkEmulationMode mode) {
    return mode == LinkEmulationMode::Root            ? "root"
           : mode == LinkEmulationMode::UserNamespace ? "user_namespace"
                                                      : "unavailable";
}

} // namespace commprof::platform
