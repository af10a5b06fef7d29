// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Whether this machine may emulate links (matrix/links.h) at all, asked cheaply enough for
// every plan: root, and iproute2's ip and tc. Which shapers the kernel has is the probe's
// question (runner/host_network.h), since answering it makes a namespace.

#include <QString>

namespace commprof::platform {

// Why links cannot be emulated here, or empty.
QString linkEmulationRefusal();

} // namespace commprof::platform
