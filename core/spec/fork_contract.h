// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the runner, the rank fork server (commprof-rank --fork-server) and its client
// (commprof-rank-fork) agree on. libtorch's start-up (about 0.5 s of loading and operator
// registration) is paid once per run by the server; each rank is a fork of it, started through
// the small client so that the launchers keep a process of their own per rank (its pipes, exit
// status, signals and pid file), docs/performance.md. Plain C++17, header-only, as
// rank_contract.h.

namespace commprof::spec::fork {

// The flag that makes commprof-rank a fork server listening on the unix socket it names.
inline constexpr const char* kServerFlag = "--fork-server";
// The client, beside commprof-rank (or in ../libexec/commprof/ of an installed tree). It is
// started as `commprof-rank-fork SOCKET RANK_PROGRAM ARGS...`.
inline constexpr const char* kClientProgram = "commprof-rank-fork";
// The server's first line on stdout: kReady, or kRefused and why it cannot fork ranks.
inline constexpr const char* kReady = "fork-server ready";
inline constexpr const char* kRefused = "fork-server refused: ";
// Each line the runner writes on the server's stdin is a probe, which the serving server answers
// at once with this line on its stdout: a server that stops answering (stopped by SIGSTOP, hung)
// is told from a busy one within seconds, where its clients would wait out the cell's deadline.
inline constexpr const char* kAlive = "fork-server alive";
// The first line the client writes on the rank's stderr when it execs the rank instead of having
// it forked, followed by why: the runner records such a rank as started by exec.
inline constexpr const char* kExecNotice = "commprof-rank-fork: rank started by exec: ";
// Set to 0 in the runner's environment: every rank is exec'd. Any other value, or none: ranks
// are forked from the server, which saves each cell libtorch's start-up (a 2-rank tiny cell
// 0.84 s forked against 5.4 s exec'd at a load of 8, docs/performance.md).
inline constexpr const char* kEnableEnv = "COMMPROF_FORK_SERVER";

// The variables a launcher sets per rank. A forked rank may differ from the server in these
// alone: any other difference (OMP_NUM_THREADS, say, which libgomp reads when it is loaded)
// would not reach a fork, so such a rank is started by exec instead.
inline constexpr const char* kPerRankEnvironment[] = {
    "RANK", "LOCAL_RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "COMMPROF_STORE_TOKEN"};

} // namespace commprof::spec::fork
