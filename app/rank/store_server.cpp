// SPDX-License-Identifier: GPL-3.0-or-later
#include "store_server.h"

#include "store_protocol.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <list>
#include <map>
#include <optional>
#include <thread>

namespace commprof::rank {
namespace {

using Clock = std::chrono::steady_clock;
using store::ProtocolError;

// A client that has connected but not yet said hello; a rank says it at once.
constexpr std::size_t kMaxPendingHellos = 32;
constexpr auto kHelloTimeout = std::chrono::seconds(5);
constexpr std::size_t kReadChunk = std::size_t{64} * 1024;
// Accepting fails when the process is out of descriptors: stop listening for a moment rather
// than spin on a socket that stays readable.
constexpr auto kListenBackoff = std::chrono::milliseconds(100);

struct Connection {
    int fd = -1;
    bool authenticated = false;
    bool dead = false;
    bool closeAfterWrite = false;
    Clock::time_point helloDeadline;
    std::string in;
    std::string out;
    // A get or wait parked until its keys exist or its deadline passes.
    bool waiting = false;
    char waitOp = 0;
    std::vector<std::string> waitKeys;
    Clock::time_point waitDeadline;
};

bool sameToken(const std::string& a, const std::string& b) {
    // Every byte is compared whatever the first difference, so timing says nothing.
    unsigned char diff = a.size() == b.size() ? 0 : 1;
    const std::size_t n = std::max(a.size(), b.size());
    for (std::size_t i = 0; i < n; ++i) {
        diff |= (i < a.size() ? a[i] : 0) ^ (i < b.size() ? b[i] : 0);
    }
    return diff == 0;
}

std::optional<std::int64_t> parseInt64(const std::string& s) {
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    const bool whole = ec == std::errc() && end == s.data() + s.size() && !s.empty();
    return whole ? std::optional<std::int64_t>(v) : std::nullopt;
}

int msUntil(Clock::time_point t, Clock::time_point now) {
    const auto ms = std::chrono::ceil<std::chrono::milliseconds>(t - now).count();
    return int(std::clamp<std::int64_t>(ms, 0, 60000));
}

} // namespace

class StoreServer::Loop {
public:
    explicit Loop(StoreServerConfig config) : config_(std::move(config)) {
        listenFd_ = store::listenOn(config_.host, config_.port);
        wakeFd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (wakeFd_ < 0) {
            ::close(listenFd_);
            throw std::runtime_error(std::string("eventfd: ") + std::strerror(errno));
        }
        thread_ = std::thread([this] { run(); });
    }

    ~Loop() {
        const std::uint64_t one = 1;
        (void)!::write(wakeFd_, &one, sizeof one);
        thread_.join();
        for (auto& c : conns_) {
            ::close(c.fd);
        }
        ::close(wakeFd_);
        ::close(listenFd_);
    }

private:
    void run() {
        try {
            serve();
        } catch (const std::exception& e) {
            // The store is gone; the ranks time out with their own message.
            std::fprintf(stderr, "commprof-rank: rendezvous store stopped: %s\n", e.what());
        }
    }

    void serve() {
        std::vector<pollfd> fds;
        std::vector<Connection*> owners;
        for (;;) {
            const auto now = Clock::now();
            expire(now);
            fds.clear();
            owners.clear();
            fds.push_back({wakeFd_, POLLIN, 0});
            const bool listening = now >= listenPausedUntil_;
            fds.push_back({listenFd_, short(listening ? POLLIN : 0), 0});
            for (auto& c : conns_) {
                short events = 0;
                if (!c.out.empty()) {
                    events = POLLOUT;
                } else if (!c.waiting && !c.closeAfterWrite) {
                    events = POLLIN;
                }
                fds.push_back({c.fd, events, 0});
                owners.push_back(&c);
            }
            const int n = ::poll(fds.data(), nfds_t(fds.size()), nextTimeoutMs(now, listening));
            if (n < 0) {
                if (errno == EINTR) {
                    continue;
                }
                throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
            }
            if (fds[0].revents) {
                return; // the destructor asked
            }
            for (std::size_t i = 0; i < owners.size(); ++i) {
                service(*owners[i], fds[i + 2].revents);
            }
            if (fds[1].revents & POLLIN) {
                acceptAll();
            }
            settle();
            conns_.remove_if([](const Connection& c) {
                if (c.dead) {
                    ::close(c.fd);
                }
                return c.dead;
            });
        }
    }

    int nextTimeoutMs(Clock::time_point now, bool listening) const {
        int timeout = listening ? -1 : msUntil(listenPausedUntil_, now);
        for (const auto& c : conns_) {
            const auto at = c.waiting          ? c.waitDeadline
                            : !c.authenticated ? c.helloDeadline
                                               : Clock::time_point::max();
            if (at != Clock::time_point::max()) {
                const int ms = msUntil(at, now);
                timeout = timeout < 0 ? ms : std::min(timeout, ms);
            }
        }
        return timeout;
    }

    void expire(Clock::time_point now) {
        for (auto& c : conns_) {
            if (!c.dead && !c.authenticated && now >= c.helloDeadline) {
                c.dead = true;
            } else if (!c.dead && c.waiting) {
                answerIfReady(c);
            }
        }
    }

    void acceptAll() {
        for (;;) {
            const int fd = ::accept4(listenFd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
            if (fd < 0) {
                if (errno == EINTR || errno == ECONNABORTED) {
                    continue;
                }
                if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                    listenPausedUntil_ = Clock::now() + kListenBackoff;
                }
                return;
            }
            const int one = 1;
            ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            // Strangers cannot crowd out a rank: the oldest one still silent makes room.
            std::size_t pending = 0;
            Connection* oldest = nullptr;
            for (auto& c : conns_) {
                if (!c.authenticated && !c.dead) {
                    ++pending;
                    if (!oldest || c.helloDeadline < oldest->helloDeadline) {
                        oldest = &c;
                    }
                }
            }
            if (pending >= kMaxPendingHellos && oldest) {
                oldest->dead = true;
            }
            Connection& c = conns_.emplace_back();
            c.fd = fd;
            c.helloDeadline =
                Clock::now() + std::min<Clock::duration>(kHelloTimeout, config_.waitCap);
        }
    }

    void service(Connection& c, short revents) {
        if (c.dead || revents == 0) {
            return;
        }
        if (revents & POLLNVAL) {
            c.dead = true;
            return;
        }
        if (revents & (POLLOUT | POLLERR)) {
            if (!flush(c)) {
                return;
            }
            resume(c);
        }
        if (revents & (POLLIN | POLLHUP)) {
            receive(c);
        }
    }

    void receive(Connection& c) {
        const std::size_t before = c.in.size();
        c.in.resize(before + kReadChunk);
        const ssize_t got = ::recv(c.fd, c.in.data() + before, kReadChunk, 0);
        c.in.resize(before + std::size_t(std::max<ssize_t>(got, 0)));
        if (got == 0 || (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
            c.dead = true;
            return;
        }
        resume(c);
    }

    // Answers buffered requests that a reply or a key unblocked; each round consumes a frame or
    // closes a connection, so it ends.
    void settle() {
        bool progressed = true;
        while (progressed) {
            progressed = false;
            for (auto& c : conns_) {
                if (hasWork(c)) {
                    resume(c);
                    progressed = true;
                }
            }
        }
    }

    // A frame to handle (whole, or one that breaks the limits), or a refusal to close on.
    bool hasWork(const Connection& c) const {
        if (c.dead || c.waiting || !c.out.empty()) {
            return false;
        }
        if (c.closeAfterWrite) {
            return true;
        }
        if (c.in.size() < 4) {
            return false;
        }
        const std::uint32_t n = store::peekU32(c.in);
        return n == 0 || n > frameLimit(c) || c.in.size() - 4 >= n;
    }

    std::uint32_t frameLimit(const Connection& c) const {
        return c.authenticated || config_.token.empty() ? store::kMaxFrameBytes
                                                        : store::kMaxHelloFrameBytes;
    }

    // Handles the connection's buffered frames, one reply at a time, until it must wait for
    // the client or for a key.
    void resume(Connection& c) {
        while (hasWork(c)) {
            const std::uint32_t n = c.closeAfterWrite ? 0 : store::peekU32(c.in);
            if (n == 0 || n > frameLimit(c)) {
                c.dead = true; // refused, or a frame that breaks the limits
                return;
            }
            const std::string body = c.in.substr(4, n);
            c.in.erase(0, std::size_t(n) + 4);
            try {
                handle(c, body);
            } catch (const ProtocolError&) {
                c.dead = true;
                return;
            }
            if (!c.out.empty()) {
                flush(c);
            }
        }
    }

    bool flush(Connection& c) {
        while (!c.out.empty()) {
            const ssize_t sent = ::send(c.fd, c.out.data(), c.out.size(), MSG_NOSIGNAL);
            if (sent < 0) {
                if (errno == EINTR) {
                    continue;
                }
                if (errno == EAGAIN || errno == EWOULDBLOCK) {
                    return true;
                }
                c.dead = true;
                return false;
            }
            c.out.erase(0, std::size_t(sent));
        }
        return true;
    }

    void reply(Connection& c, store::Status status, const std::string& payload = {}) {
        c.out += store::frame(std::string(1, char(status)) + payload);
    }

    void handle(Connection& c, const std::string& body) {
        store::Reader r(body);
        const char op = r.op();
        if (!c.authenticated) {
            if (!admit(c, op, r) || op == store::Hello) {
                return; // turned away, or let in by its hello
            }
        } else if (op == store::Hello) {
            throw ProtocolError("a second hello");
        }
        switch (op) {
        case store::Set: {
            const std::string key = r.key();
            std::string value = r.field();
            r.end();
            put(c, key, std::move(value), {});
            return;
        }
        case store::CompareSet: {
            const std::string key = r.key();
            const std::string expected = r.field();
            std::string desired = r.field();
            r.end();
            const auto it = data_.find(key);
            const bool swap = it == data_.end() ? expected.empty() : it->second == expected;
            if (!swap) {
                reply(c, store::Done, it == data_.end() ? expected : it->second);
                return;
            }
            put(c, key, desired, desired);
            return;
        }
        case store::Get:
        case store::Wait: {
            const std::uint32_t timeoutMs = r.u32();
            std::vector<std::string> keys = r.keys(op == store::Get ? 1 : 0);
            if (op == store::Get && keys.size() != 1) {
                throw ProtocolError("a get names exactly one key");
            }
            r.end();
            c.waiting = true;
            c.waitOp = op;
            c.waitKeys = std::move(keys);
            c.waitDeadline =
                Clock::now() + std::min<std::chrono::milliseconds>(
                                   std::chrono::milliseconds(timeoutMs), config_.waitCap);
            answerIfReady(c);
            return;
        }
        case store::Add: {
            const std::string key = r.key();
            const auto delta = parseInt64(r.field(32));
            r.end();
            const auto it = data_.find(key);
            const auto now =
                it == data_.end() ? std::optional<std::int64_t>(0) : parseInt64(it->second);
            std::int64_t sum = 0;
            if (!delta || !now || __builtin_add_overflow(*now, *delta, &sum)) {
                reply(c, store::Refused,
                      "add on '" + key + "': not a 64-bit integer or the sum overflows");
                return;
            }
            put(c, key, std::to_string(sum), std::to_string(sum));
            return;
        }
        case store::Check: {
            const auto keys = r.keys(0);
            r.end();
            reply(c, store::Done, haveAll(keys) ? "1" : "0");
            return;
        }
        case store::Delete: {
            const std::string key = r.key();
            r.end();
            const auto it = data_.find(key);
            const bool found = it != data_.end();
            if (found) {
                storedBytes_ -= it->first.size() + it->second.size();
                data_.erase(it);
            }
            reply(c, store::Done, found ? "1" : "0");
            return;
        }
        case store::Count:
            r.end();
            reply(c, store::Done, std::to_string(data_.size()));
            return;
        default:
            throw ProtocolError("unknown request");
        }
    }

    // A connection's first frame: with a token it must be a hello carrying it; without one any
    // request is let in (a hello is answered). False when the connection is turned away.
    bool admit(Connection& c, char op, store::Reader& r) {
        if (op == store::Hello) {
            const std::string token = r.field(store::kMaxHelloFrameBytes);
            r.end();
            if (!config_.token.empty() && !sameToken(token, config_.token)) {
                refuse(c, "wrong store token (COMMPROF_STORE_TOKEN differs from rank 0's)");
                return false;
            }
        } else if (!config_.token.empty()) {
            throw ProtocolError("the first message must be a hello");
        }
        const auto clients = std::count_if(conns_.begin(), conns_.end(), [](const Connection& k) {
            return k.authenticated && !k.dead;
        });
        if (std::size_t(clients) >= std::size_t(config_.maxClients)) {
            refuse(c, "too many clients (" + std::to_string(config_.maxClients) + ")");
            return false;
        }
        c.authenticated = true;
        if (op == store::Hello) {
            reply(c, store::Done);
        }
        return true;
    }

    void refuse(Connection& c, const std::string& why) {
        reply(c, store::Refused, why);
        c.closeAfterWrite = true;
    }

    // Stores key=value within the store's limits, replies `answer`, and wakes waiters.
    void put(Connection& c, const std::string& key, std::string value, const std::string& answer) {
        const auto it = data_.find(key);
        const std::size_t old = it == data_.end() ? 0 : key.size() + it->second.size();
        const std::size_t total = storedBytes_ - old + key.size() + value.size();
        if (total > store::kMaxStoredBytes ||
            (it == data_.end() && data_.size() >= store::kMaxStoredKeys)) {
            reply(c, store::Refused,
                  "store full: at most " + std::to_string(store::kMaxStoredKeys) + " keys and " +
                      std::to_string(store::kMaxStoredBytes >> 20) + " MiB");
            return;
        }
        data_[key] = std::move(value);
        storedBytes_ = total;
        reply(c, store::Done, answer);
        for (auto& other : conns_) {
            if (other.waiting && !other.dead) {
                answerIfReady(other);
            }
        }
    }

    void answerIfReady(Connection& c) {
        const bool ready = haveAll(c.waitKeys);
        if (!ready && Clock::now() < c.waitDeadline) {
            return;
        }
        c.waiting = false;
        reply(c, ready ? store::Done : store::TimedOut,
              ready && c.waitOp == store::Get ? data_[c.waitKeys.front()] : "");
        flush(c);
    }

    bool haveAll(const std::vector<std::string>& keys) const {
        return std::all_of(keys.begin(), keys.end(),
                           [this](const std::string& k) { return data_.count(k) > 0; });
    }

    StoreServerConfig config_;
    int listenFd_ = -1;
    int wakeFd_ = -1;
    Clock::time_point listenPausedUntil_{};
    std::list<Connection> conns_;
    std::map<std::string, std::string> data_;
    std::size_t storedBytes_ = 0;
    std::thread thread_;
};

StoreServer::StoreServer(StoreServerConfig config)
    : loop_(std::make_unique<Loop>(std::move(config))) {}

StoreServer::~StoreServer() = default;

} // namespace commprof::rank
