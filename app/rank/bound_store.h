// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The rendezvous store's client: a c10d::Store over one TCP connection to the StoreServer
// that rank 0 runs (store_server.h). The connection's first frame presents the cell's token.

#include "c10d_compat.h"

#include <memory>
#include <mutex>
#include <string>

namespace commprof::rank {

class StoreServer;

struct StoreAddress {
    std::string host;
    int port = 0;
    std::string token; // empty: the server must run without one
};

class BoundStore : public CompatStore {
public:
    // Connects (retrying until the timeout: the server may not be up yet) and says hello.
    // `server` is kept alive as long as this client or a clone of it lives.
    BoundStore(StoreAddress address, std::chrono::milliseconds timeout,
               std::shared_ptr<StoreServer> server = nullptr);
    ~BoundStore() override;

    void set(const std::string& key, const std::vector<uint8_t>& value) override;
    std::vector<uint8_t> compareSet(const std::string& key, const std::vector<uint8_t>& expected,
                                    const std::vector<uint8_t>& desired) override;
    std::vector<uint8_t> get(const std::string& key) override;
    int64_t add(const std::string& key, int64_t value) override;
    bool deleteKey(const std::string& key) override;
    bool check(const std::vector<std::string>& keys) override;
    int64_t getNumKeys() override;
    void wait(const std::vector<std::string>& keys) override;
    void wait(const std::vector<std::string>& keys,
              const std::chrono::milliseconds& timeout) override;
    // Another connection to the same server.
    c10::intrusive_ptr<c10d::Store> clone() override;

private:
    // Sends one request and returns the reply's payload; `waitMs` extends the deadline of a
    // get or wait beyond the store's timeout by what the server may take.
    std::string request(const std::string& message, std::chrono::milliseconds waitMs = {});
    StoreAddress address_;
    std::shared_ptr<StoreServer> server_;
    int fd_ = -1;
    std::mutex mutex_;
};

} // namespace commprof::rank
