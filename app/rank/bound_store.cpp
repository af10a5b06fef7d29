#include "bound_store.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <map>
#include <stdexcept>
#include <thread>

namespace commprof::rank {
namespace {

// Wire format: every message is u32 length + body. A request body is op byte + fields; a
// field is u32 length + bytes.
enum Op : char {
    Set = 's',
    Get = 'g',
    Add = 'a',
    Check = 'c',
    Wait = 'w',
    Delete = 'd',
    Count = 'n',
    CompareSet = 'x'
};

void putU32(std::string& out, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) {
        out += char((v >> (8 * i)) & 0xff);
    }
}
void putField(std::string& out, const std::string& s) {
    putU32(out, std::uint32_t(s.size()));
    out += s;
}
std::uint32_t getU32(const std::string& in, std::size_t& pos) {
    if (pos + 4 > in.size()) {
        throw std::runtime_error("store: truncated message");
    }
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
        v |= std::uint32_t(std::uint8_t(in[pos + std::size_t(i)])) << (8 * i);
    }
    pos += 4;
    return v;
}
std::string getField(const std::string& in, std::size_t& pos) {
    const std::uint32_t n = getU32(in, pos);
    if (pos + n > in.size()) {
        throw std::runtime_error("store: truncated field");
    }
    std::string s = in.substr(pos, n);
    pos += n;
    return s;
}

bool writeAll(int fd, const std::string& data) {
    std::size_t done = 0;
    while (done < data.size()) {
        const ssize_t n = ::send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
        if (n <= 0) {
            if (n < 0 && errno == EINTR) {
                continue;
            }
            return false;
        }
        done += std::size_t(n);
    }
    return true;
}

bool readAll(int fd, std::string& out, std::size_t n) {
    out.resize(n);
    std::size_t done = 0;
    while (done < n) {
        const ssize_t got = ::recv(fd, out.data() + done, n - done, 0);
        if (got <= 0) {
            if (got < 0 && errno == EINTR) {
                continue;
            }
            return false;
        }
        done += std::size_t(got);
    }
    return true;
}

bool sendMessage(int fd, const std::string& body) {
    std::string framed;
    putU32(framed, std::uint32_t(body.size()));
    return writeAll(fd, framed + body);
}

bool receiveMessage(int fd, std::string& body) {
    std::string head;
    if (!readAll(fd, head, 4)) {
        return false;
    }
    std::size_t pos = 0;
    const std::uint32_t n = getU32(head, pos);
    return readAll(fd, body, n);
}

std::string bytes(const std::vector<uint8_t>& v) {
    return std::string(v.begin(), v.end());
}
std::vector<uint8_t> vec(const std::string& s) {
    return std::vector<uint8_t>(s.begin(), s.end());
}

addrinfo* resolve(const std::string& host, int port, bool passive) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = passive ? AI_PASSIVE : 0;
    addrinfo* res = nullptr;
    const std::string service = std::to_string(port);
    if (::getaddrinfo(host.c_str(), service.c_str(), &hints, &res) != 0 || !res) {
        throw std::runtime_error("cannot resolve rendezvous address '" + host + "'");
    }
    return res;
}

} // namespace

// The key-value map, served one thread per connection. Waits block server-side.
class BoundStoreServer {
public:
    BoundStoreServer(const std::string& host, int port) {
        addrinfo* res = resolve(host, port, true);
        int err = 0;
        for (addrinfo* a = res; a; a = a->ai_next) {
            const int fd = ::socket(a->ai_family, a->ai_socktype, a->ai_protocol);
            if (fd < 0) {
                continue;
            }
            const int one = 1;
            ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
            if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, 512) == 0) {
                listenFd_ = fd;
                break;
            }
            err = errno;
            ::close(fd);
        }
        ::freeaddrinfo(res);
        if (listenFd_ < 0) {
            throw std::runtime_error(err == EADDRINUSE
                                         ? "address already in use"
                                         : std::string("cannot listen: ") + std::strerror(err));
        }
        // Detached: the threads block in accept/recv until the process exits.
        std::thread([this] { acceptLoop(); }).detach();
    }

private:
    void acceptLoop() {
        for (;;) {
            const int fd = ::accept(listenFd_, nullptr, nullptr);
            if (fd < 0) {
                if (errno == EINTR) {
                    continue;
                }
                return;
            }
            const int one = 1;
            ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            std::thread([this, fd] { serve(fd); }).detach();
        }
    }

    void serve(int fd) {
        std::string body;
        while (receiveMessage(fd, body)) {
            std::string reply;
            try {
                reply = handle(body);
            } catch (const std::exception&) {
                break;
            }
            if (!sendMessage(fd, reply)) {
                break;
            }
        }
        ::close(fd);
    }

    bool haveAll(const std::vector<std::string>& keys) const {
        for (const auto& k : keys) {
            if (!data_.count(k)) {
                return false;
            }
        }
        return true;
    }

    std::string handle(const std::string& body) {
        std::size_t pos = 1;
        const char op = body.empty() ? 0 : body[0];
        std::unique_lock<std::mutex> lock(mutex_);
        switch (op) {
        case Set: {
            const std::string key = getField(body, pos);
            data_[key] = getField(body, pos);
            changed_.notify_all();
            return "1";
        }
        case CompareSet: {
            const std::string key = getField(body, pos);
            const std::string expected = getField(body, pos);
            const std::string desired = getField(body, pos);
            auto it = data_.find(key);
            if ((it == data_.end() && expected.empty()) ||
                (it != data_.end() && it->second == expected)) {
                data_[key] = desired;
                changed_.notify_all();
                return desired;
            }
            return it == data_.end() ? expected : it->second;
        }
        case Get:
        case Wait: {
            const std::uint32_t timeoutMs = getU32(body, pos);
            const std::uint32_t n = getU32(body, pos);
            std::vector<std::string> keys;
            for (std::uint32_t i = 0; i < n; ++i) {
                keys.push_back(getField(body, pos));
            }
            const bool ok = changed_.wait_for(lock, std::chrono::milliseconds(timeoutMs),
                                              [&] { return haveAll(keys); });
            if (!ok) {
                return "0";
            }
            return op == Get ? "1" + data_[keys.front()] : "1";
        }
        case Add: {
            const std::string key = getField(body, pos);
            const std::int64_t delta = std::stoll(getField(body, pos));
            const std::int64_t now = (data_.count(key) ? std::stoll(data_[key]) : 0) + delta;
            data_[key] = std::to_string(now);
            changed_.notify_all();
            return std::to_string(now);
        }
        case Check: {
            const std::uint32_t n = getU32(body, pos);
            std::vector<std::string> keys;
            for (std::uint32_t i = 0; i < n; ++i) {
                keys.push_back(getField(body, pos));
            }
            return haveAll(keys) ? "1" : "0";
        }
        case Delete:
            return data_.erase(getField(body, pos)) ? "1" : "0";
        case Count:
            return std::to_string(data_.size());
        default:
            throw std::runtime_error("store: unknown request");
        }
    }

    int listenFd_ = -1;
    std::mutex mutex_;
    std::condition_variable changed_;
    std::map<std::string, std::string> data_;
};

BoundStore::BoundStore(const std::string& host, int port, bool serve,
                       std::chrono::milliseconds timeout)
    : c10d::Store(timeout) {
    if (serve) {
        server_ = std::make_shared<BoundStoreServer>(host, port);
    }
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    int lastErr = 0;
    while (fd_ < 0) {
        addrinfo* res = resolve(host, port, false);
        for (addrinfo* a = res; a && fd_ < 0; a = a->ai_next) {
            const int fd = ::socket(a->ai_family, a->ai_socktype, a->ai_protocol);
            if (fd < 0) {
                continue;
            }
            if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
                const int one = 1;
                ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                fd_ = fd;
            } else {
                lastErr = errno;
                ::close(fd);
            }
        }
        ::freeaddrinfo(res);
        if (fd_ < 0) {
            if (std::chrono::steady_clock::now() > deadline) {
                throw std::runtime_error("no rendezvous server at " + host + ":" +
                                         std::to_string(port) + " (" + std::strerror(lastErr) +
                                         ")");
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    }
}

BoundStore::~BoundStore() {
    if (fd_ >= 0) {
        ::close(fd_);
    }
}

std::string BoundStore::request(const std::string& message) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::string reply;
    if (!sendMessage(fd_, message) || !receiveMessage(fd_, reply)) {
        throw std::runtime_error("rendezvous store connection lost");
    }
    return reply;
}

void BoundStore::set(const std::string& key, const std::vector<uint8_t>& value) {
    std::string m(1, Set);
    putField(m, key);
    putField(m, bytes(value));
    request(m);
}

std::vector<uint8_t> BoundStore::compareSet(const std::string& key,
                                            const std::vector<uint8_t>& expected,
                                            const std::vector<uint8_t>& desired) {
    std::string m(1, CompareSet);
    putField(m, key);
    putField(m, bytes(expected));
    putField(m, bytes(desired));
    return vec(request(m));
}

std::vector<uint8_t> BoundStore::get(const std::string& key) {
    std::string m(1, Get);
    putU32(m, std::uint32_t(timeout_.count()));
    putU32(m, 1);
    putField(m, key);
    const std::string reply = request(m);
    if (reply.empty() || reply[0] != '1') {
        throw std::runtime_error("rendezvous: timed out after " + std::to_string(timeout_.count()) +
                                 " ms waiting for key '" + key + "'");
    }
    return vec(reply.substr(1));
}

int64_t BoundStore::add(const std::string& key, int64_t value) {
    std::string m(1, Add);
    putField(m, key);
    putField(m, std::to_string(value));
    return std::stoll(request(m));
}

bool BoundStore::deleteKey(const std::string& key) {
    std::string m(1, Delete);
    putField(m, key);
    return request(m) == "1";
}

bool BoundStore::check(const std::vector<std::string>& keys) {
    std::string m(1, Check);
    putU32(m, std::uint32_t(keys.size()));
    for (const auto& k : keys) {
        putField(m, k);
    }
    return request(m) == "1";
}

int64_t BoundStore::getNumKeys() {
    return std::stoll(request(std::string(1, Count)));
}

void BoundStore::wait(const std::vector<std::string>& keys) {
    wait(keys, timeout_);
}

void BoundStore::wait(const std::vector<std::string>& keys,
                      const std::chrono::milliseconds& timeout) {
    std::string m(1, Wait);
    putU32(m, std::uint32_t(timeout.count()));
    putU32(m, std::uint32_t(keys.size()));
    for (const auto& k : keys) {
        putField(m, k);
    }
    if (request(m) != "1") {
        throw std::runtime_error("rendezvous: timed out after " + std::to_string(timeout.count()) +
                                 " ms waiting for " + std::to_string(keys.size()) +
                                 " key(s), first '" +
                                 (keys.empty() ? std::string() : keys.front()) + "'");
    }
}

} // namespace commprof::rank
