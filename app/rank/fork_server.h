// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// commprof-rank --fork-server SOCKET: libtorch loaded and its operators registered once, then a
// rank forked for each request of the client (commprof-rank-fork), which the launchers start
// in the rank's place. Every fork is made from the server's one thread, checked before each
// fork; where a fork would not be the rank an exec makes, the client is told why and execs.

#include <string>

namespace commprof::rank {

using RankMain = int (*)(int argc, char** argv);

// Serves until stdin closes (the runner ended or let go of it); 0 then, 1 when it cannot serve.
int runForkServer(const std::string& socketPath, RankMain rankMain);

} // namespace commprof::rank
