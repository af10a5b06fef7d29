// SPDX-License-Identifier: GPL-3.0-or-later
#include "bound_store.h"

#include "store_protocol.h"
#include "store_server.h"

#include <unistd.h>

#include <optional>
#include <stdexcept>

namespace commprof::rank {
namespace {

using Clock = std::chrono::steady_clock;

std::string bytes(const std::vector<uint8_t>& v) {
    return std::string(v.begin(), v.end());
}
std::vector<uint8_t> vec(const std::string& s) {
    return std::vector<uint8_t>(s.begin(), s.end());
}

// OP, then each field with its length.
std::string message(char op, std::initializer_list<std::string> fields) {
    std::string m(1, op);
    for (const std::string& f : fields) {
        store::putField(m, f);
    }
    return m;
}

std::string keysRequest(char op, const std::vector<std::string>& keys,
                        std::optional<std::chrono::milliseconds> timeout = std::nullopt) {
    std::string m(1, op);
    if (timeout) {
        store::putU32(m, store::wireMs(*timeout));
    }
    store::putU32(m, std::uint32_t(keys.size()));
    for (const auto& k : keys) {
        store::putField(m, k);
    }
    return m;
}

} // namespace

BoundStore::BoundStore(StoreAddress address, std::chrono::milliseconds timeout,
                       std::shared_ptr<StoreServer> server)
    : CompatStore(timeout), address_(std::move(address)), server_(std::move(server)) {
    fd_ = store::connectBefore(address_.host, address_.port, Clock::now() + timeout);
    const std::string reply =
        store::exchange(fd_, message(store::Hello, {address_.token}), Clock::now() + timeout);
    if (reply.empty() || reply[0] != store::Done) {
        ::close(fd_);
        fd_ = -1;
        throw std::runtime_error(
            "the rendezvous store at " + address_.host + ":" + std::to_string(address_.port) +
            " refused this rank: " + (reply.empty() ? std::string("no reason") : reply.substr(1)));
    }
}

BoundStore::~BoundStore() {
    if (fd_ >= 0) {
        ::close(fd_);
    }
}

c10::intrusive_ptr<c10d::Store> BoundStore::clone() {
    return c10::make_intrusive<BoundStore>(address_, timeout_, server_);
}

std::string BoundStore::request(const std::string& message, std::chrono::milliseconds waitMs) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (fd_ < 0) {
        throw std::runtime_error("rendezvous store connection lost");
    }
    std::string reply;
    try {
        reply = store::exchange(fd_, message, Clock::now() + timeout_ + waitMs);
    } catch (const std::exception&) {
        // A reply may be half read: the connection cannot be trusted again.
        ::close(fd_);
        fd_ = -1;
        throw;
    }
    if (reply[0] == store::Refused) {
        throw std::runtime_error("rendezvous store refused: " + reply.substr(1));
    }
    if (reply[0] != store::Done && reply[0] != store::TimedOut) {
        throw std::runtime_error("rendezvous store: reply breaks the protocol");
    }
    return reply;
}

void BoundStore::set(const std::string& key, const std::vector<uint8_t>& value) {
    request(message(store::Set, {key, bytes(value)}));
}

std::vector<uint8_t> BoundStore::compareSet(const std::string& key,
                                            const std::vector<uint8_t>& expected,
                                            const std::vector<uint8_t>& desired) {
    return vec(
        request(message(store::CompareSet, {key, bytes(expected), bytes(desired)})).substr(1));
}

std::vector<uint8_t> BoundStore::get(const std::string& key) {
    const std::string reply = request(keysRequest(store::Get, {key}, timeout_), timeout_);
    if (reply[0] != store::Done) {
        throw std::runtime_error("rendezvous: timed out after " + std::to_string(timeout_.count()) +
                                 " ms waiting for key '" + key + "'");
    }
    return vec(reply.substr(1));
}

int64_t BoundStore::add(const std::string& key, int64_t value) {
    return std::stoll(request(message(store::Add, {key, std::to_string(value)})).substr(1));
}

bool BoundStore::deleteKey(const std::string& key) {
    return request(message(store::Delete, {key})).substr(1) == "1";
}

bool BoundStore::check(const std::vector<std::string>& keys) {
    return request(keysRequest(store::Check, keys)).substr(1) == "1";
}

int64_t BoundStore::getNumKeys() {
    return std::stoll(request(std::string(1, store::Count)).substr(1));
}

void BoundStore::wait(const std::vector<std::string>& keys) {
    wait(keys, timeout_);
}

void BoundStore::wait(const std::vector<std::string>& keys,
                      const std::chrono::milliseconds& timeout) {
    if (request(keysRequest(store::Wait, keys, timeout), timeout)[0] != store::Done) {
        throw std::runtime_error("rendezvous: timed out after " + std::to_string(timeout.count()) +
                                 " ms waiting for " + std::to_string(keys.size()) +
                                 " key(s), first '" + (keys.empty() ? "" : keys.front()) + "'");
    }
}

} // namespace commprof::rank
