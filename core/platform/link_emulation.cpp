// SPDX-License-Identifier: GPL-3.0-or-later
#include "link_emulation.h"

#include <QStandardPaths>

#include <unistd.h>

namespace commprof::platform {

QString linkEmulationRefusal() {
    // Network namespaces, veth pairs and qdiscs need CAP_NET_ADMIN and CAP_SYS_ADMIN in the
    // initial namespaces; the unprivileged user-namespace mode is not built (docs/cli.md).
    if (::geteuid() != 0) {
        return "emulated links need root (network namespaces, veth pairs and tc qdiscs are "
               "made for each cell); run as root, or use link: loopback";
    }
    for (const char* tool : {"ip", "tc"}) {
        if (QStandardPaths::findExecutable(tool).isEmpty() &&
            QStandardPaths::findExecutable(tool, {"/usr/sbin", "/sbin"}).isEmpty()) {
            return QString("'%1' (iproute2) is not installed").arg(tool);
        }
    }
    return {};
}

} // namespace commprof::platform
