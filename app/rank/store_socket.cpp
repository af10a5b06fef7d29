// SPDX-License-Identifier: GPL-3.0-or-later
#include "store_protocol.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace commprof::rank::store {
namespace {

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

// A socket of `flags` on the first of host:port's addresses that `use` (bind, connect) takes,
// else -1 with the last failure's errno in `err`.
template <typename Use>
int firstSocket(const std::string& host, int port, bool passive, int flags, int& err, Use use) {
    addrinfo* res = resolve(host, port, passive);
    int out = -1;
    for (addrinfo* a = res; a && out < 0; a = a->ai_next) {
        const int fd = ::socket(a->ai_family, a->ai_socktype | flags, a->ai_protocol);
        if (fd >= 0 && use(fd, *a)) {
            out = fd;
        } else if (fd >= 0) {
            err = errno;
            ::close(fd);
        }
    }
    ::freeaddrinfo(res);
    return out;
}

int msLeft(SteadyTime deadline) {
    const auto ms =
        std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now())
            .count();
    return int(std::clamp<std::int64_t>(ms, 0, 1 << 30));
}

// Waits until fd is ready for `events`; false when the deadline passes first.
bool waitFor(int fd, short events, SteadyTime deadline) {
    for (;;) {
        pollfd p{fd, events, 0};
        const int n = ::poll(&p, 1, msLeft(deadline));
        if (n >= 0) {
            return n > 0;
        }
        if (errno != EINTR) {
            throw std::runtime_error(std::string("rendezvous store: ") + std::strerror(errno));
        }
    }
}

void sendAll(int fd, const std::string& data, SteadyTime deadline) {
    std::size_t done = 0;
    while (done < data.size()) {
        const ssize_t n =
            ::send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            done += std::size_t(n);
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (!waitFor(fd, POLLOUT, deadline)) {
                throw std::runtime_error("rendezvous store: timed out sending");
            }
        } else {
            throw std::runtime_error("rendezvous store connection lost");
        }
    }
}

std::string receiveAll(int fd, std::size_t n, SteadyTime deadline) {
    std::string out;
    while (out.size() < n) {
        if (!waitFor(fd, POLLIN, deadline)) {
            throw std::runtime_error("rendezvous store: no reply in time");
        }
        char buf[65536];
        const ssize_t got = ::recv(fd, buf, std::min(sizeof buf, n - out.size()), MSG_DONTWAIT);
        if (got > 0) {
            out.append(buf, std::size_t(got));
        } else if (got < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) {
            continue;
        } else {
            throw std::runtime_error("rendezvous store connection lost");
        }
    }
    return out;
}

} // namespace

int listenOn(const std::string& host, int port) {
    int err = 0;
    const int listenFd = firstSocket(
        host, port, true, SOCK_NONBLOCK | SOCK_CLOEXEC, err, [](int fd, const addrinfo& a) {
            const int one = 1;
            ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
            return ::bind(fd, a.ai_addr, a.ai_addrlen) == 0 && ::listen(fd, 512) == 0;
        });
    if (listenFd < 0) {
        throw std::runtime_error(err == EADDRINUSE
                                     ? "address already in use"
                                     : std::string("cannot listen: ") + std::strerror(err));
    }
    return listenFd;
}

int connectBefore(const std::string& host, int port, SteadyTime deadline) {
    int lastErr = 0;
    for (;;) {
        const int connected =
            firstSocket(host, port, false, SOCK_CLOEXEC, lastErr, [](int fd, const addrinfo& a) {
                if (::connect(fd, a.ai_addr, a.ai_addrlen) != 0) {
                    return false;
                }
                const int one = 1;
                ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                return true;
            });
        if (connected >= 0) {
            return connected;
        }
        if (std::chrono::steady_clock::now() > deadline) {
            throw std::runtime_error("no rendezvous server at " + host + ":" +
                                     std::to_string(port) + " (" + std::strerror(lastErr) + ")");
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
}

std::string exchange(int fd, const std::string& body, SteadyTime deadline) {
    sendAll(fd, frame(body), deadline);
    const std::uint32_t n = peekU32(receiveAll(fd, 4, deadline));
    // A reply holds a status byte and at most one value.
    if (n == 0 || n > kMaxFrameBytes + 1) {
        throw std::runtime_error("rendezvous store: reply of " + std::to_string(n) +
                                 " bytes breaks the protocol");
    }
    return receiveAll(fd, n, deadline);
}

} // namespace commprof::rank::store
