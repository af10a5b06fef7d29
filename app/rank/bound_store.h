#pragma once
// A key-value rendezvous store whose server listens on one address only. libtorch 1.13's
// TCPStore server always listens on every interface; rank 0 of a workbench pool must not.
// Ranks 1..N-1 and rank 0 itself talk to it over one TCP connection each.

#include "c10d_compat.h"

#include <memory>
#include <mutex>
#include <string>

namespace commprof::rank {

class BoundStoreServer;

class BoundStore : public c10d::Store {
public:
    // Rank 0 passes serve=true: it binds host:port (EADDRINUSE is reported as such) before
    // connecting. Everyone retries the connection until the timeout.
    BoundStore(const std::string& host, int port, bool serve, std::chrono::milliseconds timeout);
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

private:
    std::string request(const std::string& message);
    std::shared_ptr<BoundStoreServer> server_;
    int fd_ = -1;
    std::mutex mutex_;
};

} // namespace commprof::rank
