// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The probe's part on emulated links (matrix/links.h): whether this machine can make them and
// which shapers its kernel has, and the hosts a killed run left behind (removed by --cleanup).

#include "probe/probe.h"

namespace commprof::probe {

void checkLinks(const ProbeOptions& o, ProbeReport& r);

} // namespace commprof::probe
