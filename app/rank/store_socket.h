// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Sockets for the rendezvous store: the server's listening socket and a client's blocking
// exchange with a deadline, so no peer can stall a rank past its timeout.

#include <chrono>
#include <string>

namespace commprof::rank {

using SteadyTime = std::chrono::steady_clock::time_point;

// A non-blocking listening socket on host:port only. Throws "address already in use" for
// EADDRINUSE.
int listenOn(const std::string& host, int port);

// Connects to host:port, retrying until the deadline (the server may not be up yet).
int connectBefore(const std::string& host, int port, SteadyTime deadline);

// One framed request and its reply. Throws std::runtime_error when the connection is lost,
// the deadline passes, or the reply's length breaks the protocol's limit.
std::string exchange(int fd, const std::string& body, SteadyTime deadline);

} // namespace commprof::rank
