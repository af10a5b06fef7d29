// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The messages between the rank fork server and its client over a unix socket: the client's
// request (its arguments, environment, and its stdin, stdout, stderr and working directory as
// descriptors), then the server's replies (the forked rank's pid or why it must be exec'd
// instead, then how the rank ended). Plain C++: the client links neither torch nor Qt.

#include <cstdint>
#include <string>
#include <vector>

namespace commprof::rank::fork {

// stdin, stdout, stderr and the working directory, in that order.
inline constexpr int kPassedFds = 4;

struct Request {
    std::vector<std::string> argv; // argv[0] is the rank program
    std::vector<std::string> env;  // NAME=VALUE
    int fds[kPassedFds] = {-1, -1, -1, -1};
};

struct Reply {
    enum Kind : std::int32_t { Forked = 1, Exec = 2, Ended = 3 };
    Kind kind = Exec;
    std::int32_t value = 0; // Forked: the rank's pid; Ended: its wait status
    std::string reason;     // Exec: why the rank is not forked
};

// Each returns false with ERROR set when the peer is gone or breaks the protocol.
bool sendRequest(int socket, const Request& request, std::string& error);
bool receiveRequest(int socket, Request& request, std::string& error);
bool sendReply(int socket, const Reply& reply);
bool receiveReply(int socket, Reply& reply, std::string& error);

} // namespace commprof::rank::fork
