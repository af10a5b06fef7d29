// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The rendezvous store's server, run by rank 0: one thread polls every connection, so a flood
// of connections costs file descriptors (bounded) and never threads. It listens on one
// address only; libtorch 1.13's TCPStore server always listens on every interface.

#include <chrono>
#include <memory>
#include <string>

namespace commprof::rank {

struct StoreServerConfig {
    std::string host;
    int port = 0;
    // Empty: every client is trusted (the rank warns). Otherwise a client's first frame must be
    // a hello carrying exactly this.
    std::string token;
    // No wait outlives this, whatever a client asks for: the rank's own timeouts.
    std::chrono::milliseconds waitCap{60000};
    // Connections past the hello; the ranks of the cell and their clones.
    int maxClients = 64;
};

class StoreServer {
public:
    // Binds and listens (throws "address already in use" for EADDRINUSE), then serves on its
    // own thread until destroyed.
    explicit StoreServer(StoreServerConfig config);
    ~StoreServer();
    StoreServer(const StoreServer&) = delete;
    StoreServer& operator=(const StoreServer&) = delete;

private:
    class Loop;
    std::unique_ptr<Loop> loop_;
};

} // namespace commprof::rank
