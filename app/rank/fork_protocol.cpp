// SPDX-License-Identifier: GPL-3.0-or-later
#include "fork_protocol.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace commprof::rank::fork {
namespace {

constexpr std::uint32_t kMagic = 0x636b7266; // "frkc"
// Arguments and environment together; a real request is a few KiB.
constexpr std::uint32_t kMaxPayload = 4u << 20;
constexpr std::uint32_t kMaxReason = 64u << 10;

struct Header {
    std::uint32_t magic;
    std::uint32_t payload;
};

struct ReplyHeader {
    std::int32_t kind;
    std::int32_t value;
    std::uint32_t reasonBytes;
};

// Calls io(offset, left) until `bytes` have gone through it; false on an error or the end of
// the stream.
template <class Io> bool whole(std::size_t bytes, Io io) {
    for (std::size_t done = 0; done < bytes;) {
        const ssize_t n = io(done, bytes - done);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return false;
        }
        done += std::size_t(n);
    }
    return true;
}

bool writeAll(int fd, const void* data, std::size_t bytes) {
    const char* p = static_cast<const char*>(data);
    return whole(
        bytes, [&](std::size_t at, std::size_t n) { return ::send(fd, p + at, n, MSG_NOSIGNAL); });
}

bool readAll(int fd, void* data, std::size_t bytes) {
    char* p = static_cast<char*>(data);
    return whole(bytes, [&](std::size_t at, std::size_t n) { return ::recv(fd, p + at, n, 0); });
}

// A message of HEADER with room for the passed descriptors.
struct FdMessage {
    explicit FdMessage(void* header, std::size_t bytes) : iov{header, bytes} {
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control;
        msg.msg_controllen = sizeof control;
    }
    iovec iov;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kPassedFds)] = {};
    msghdr msg{};
};

void appendStrings(std::string& out, const std::vector<std::string>& strings) {
    for (const std::string& s : strings) {
        out.append(s.c_str(), s.size() + 1); // each NUL-terminated
    }
}

// COUNT NUL-terminated strings from text[at, end), or false.
bool takeStrings(const std::string& text, std::size_t& at, std::uint32_t count,
                 std::vector<std::string>& out) {
    for (std::uint32_t i = 0; i < count; ++i) {
        const std::size_t end = text.find('\0', at);
        if (end == std::string::npos) {
            return false;
        }
        out.emplace_back(text, at, end - at);
        at = end + 1;
    }
    return true;
}

void closeAll(int* fds, int count) {
    for (int i = 0; i < count; ++i) {
        if (fds[i] >= 0) {
            ::close(fds[i]);
            fds[i] = -1;
        }
    }
}

} // namespace

bool sendRequest(int socket, const Request& request, std::string& error) {
    std::string payload(8, '\0');
    const std::uint32_t counts[2] = {std::uint32_t(request.argv.size()),
                                     std::uint32_t(request.env.size())};
    std::memcpy(payload.data(), counts, sizeof counts);
    appendStrings(payload, request.argv);
    appendStrings(payload, request.env);
    if (payload.size() > kMaxPayload) {
        error = "the arguments and environment exceed " + std::to_string(kMaxPayload) + " bytes";
        return false;
    }
    Header header{kMagic, std::uint32_t(payload.size())};
    FdMessage m(&header, sizeof header);
    msghdr& msg = m.msg;
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * kPassedFds);
    std::memcpy(CMSG_DATA(c), request.fds, sizeof(int) * kPassedFds);
    ssize_t sent;
    do {
        sent = ::sendmsg(socket, &msg, MSG_NOSIGNAL);
    } while (sent < 0 && errno == EINTR);
    if (sent != ssize_t(sizeof header) || !writeAll(socket, payload.data(), payload.size())) {
        error = std::string("cannot send the request: ") + std::strerror(errno);
        return false;
    }
    return true;
}

bool receiveRequest(int socket, Request& request, std::string& error) {
    Header header{};
    FdMessage m(&header, sizeof header);
    msghdr& msg = m.msg;
    ssize_t got;
    do {
        got = ::recvmsg(socket, &msg, MSG_CMSG_CLOEXEC | MSG_WAITALL);
    } while (got < 0 && errno == EINTR);
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
            c->cmsg_len == CMSG_LEN(sizeof(int) * kPassedFds)) {
            std::memcpy(request.fds, CMSG_DATA(c), sizeof(int) * kPassedFds);
        }
    }
    const bool fdsOk = request.fds[kPassedFds - 1] >= 0 && !(msg.msg_flags & MSG_CTRUNC);
    if (got != ssize_t(sizeof header) || header.magic != kMagic || !fdsOk ||
        header.payload < 2 * sizeof(std::uint32_t) || header.payload > kMaxPayload) {
        closeAll(request.fds, kPassedFds);
        error = "a malformed request";
        return false;
    }
    std::string payload(header.payload, '\0');
    std::uint32_t counts[2] = {};
    std::size_t at = sizeof counts;
    const bool read = readAll(socket, payload.data(), payload.size());
    std::memcpy(counts, payload.data(), sizeof counts);
    if (!read || !takeStrings(payload, at, counts[0], request.argv) ||
        !takeStrings(payload, at, counts[1], request.env) || at != payload.size() ||
        request.argv.empty()) {
        closeAll(request.fds, kPassedFds);
        error = "a truncated or malformed request";
        return false;
    }
    return true;
}

bool sendReply(int socket, const Reply& reply) {
    const std::string reason = reply.reason.substr(0, kMaxReason);
    const ReplyHeader header{reply.kind, reply.value, std::uint32_t(reason.size())};
    return writeAll(socket, &header, sizeof header) &&
           writeAll(socket, reason.data(), reason.size());
}

bool receiveReply(int socket, Reply& reply, std::string& error) {
    ReplyHeader header{};
    if (!readAll(socket, &header, sizeof header)) {
        error = "the fork server closed the connection";
        return false;
    }
    if (header.kind < Reply::Forked || header.kind > Reply::Ended ||
        header.reasonBytes > kMaxReason) {
        error = "a malformed reply from the fork server";
        return false;
    }
    reply.kind = Reply::Kind(header.kind);
    reply.value = header.value;
    reply.reason.assign(header.reasonBytes, '\0');
    if (!readAll(socket, reply.reason.data(), reply.reason.size())) {
        error = "the fork server closed the connection";
        return false;
    }
    return true;
}

} // namespace commprof::rank::fork
