// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The rendezvous store's wire protocol and sockets, shared by the server (rank 0) and every
// client.
//
// A frame is a u32 little-endian body length (1..kMaxFrameBytes) and the body. A request body
// is an op byte and its fields: a field is a u32 length and that many bytes, a count or a
// timeout is a bare u32. Every reply body is a status byte and a payload:
//   'K' done (payload as below)   'T' timed out   'E' refused (payload: the reason)
//
//   'h' hello    token                      -> K | E (then the server closes); first only
//   's' set      key value                  -> K
//   'x' cas      key expected desired       -> K current-value
//   'g' get      timeout-ms 1 key           -> K value | T
//   'w' wait     timeout-ms count keys...   -> K | T
//   'a' add      key decimal-delta          -> K decimal-sum
//   'c' check    count keys...              -> K '1'|'0'
//   'd' delete   key                        -> K '1'|'0'
//   'n' count                               -> K decimal
//
// When rank 0 holds a token (COMMPROF_STORE_TOKEN), a connection's first frame must be a hello
// carrying it, at most kMaxHelloFrameBytes long; without a token any first frame is served.
// Either way a connection that sends no complete first frame within a few seconds is closed,
// and only a bounded number may wait for theirs. A frame that breaks these rules (a length of 0 or
// over the limit, an unknown op, a count that does not match the fields, bytes left over) closes
// the connection without a reply.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace commprof::rank::store {

enum Op : char {
    Hello = 'h',
    Set = 's',
    CompareSet = 'x',
    Get = 'g',
    Wait = 'w',
    Add = 'a',
    Check = 'c',
    Delete = 'd',
    Count = 'n',
};

enum Status : char { Done = 'K', TimedOut = 'T', Refused = 'E' };

// Generous for a rendezvous (Gloo's address lists, model signatures) and small enough that a
// hostile client cannot balloon the rank.
constexpr std::uint32_t kMaxFrameBytes = 16u << 20;
constexpr std::uint32_t kMaxHelloFrameBytes = 4096;
constexpr std::size_t kMaxKeyBytes = 4096;
constexpr std::uint32_t kMaxKeysPerRequest = 1u << 16;
constexpr std::size_t kMaxStoredBytes = 256u << 20;
constexpr std::size_t kMaxStoredKeys = 1u << 20;

struct ProtocolError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

void putU32(std::string& out, std::uint32_t v);
void putField(std::string& out, const std::string& bytes);
// The u32 length prefix and the body.
std::string frame(const std::string& body);
// A u32 read from the first four bytes of `bytes` (which holds at least four).
std::uint32_t peekU32(const std::string& bytes);

// Reads one request or reply body front to back; every read checks the bounds.
class Reader {
public:
    explicit Reader(const std::string& body) : body_(body) {}
    char op();
    std::uint32_t u32();
    std::string field(std::size_t maxBytes = kMaxFrameBytes);
    std::string key() { return field(kMaxKeyBytes); }
    // A count, then that many keys; at least `minimum`.
    std::vector<std::string> keys(std::uint32_t minimum);
    // Throws when bytes are left over.
    void end() const;

private:
    const std::string& body_;
    std::size_t pos_ = 0;
};

// The connection's timeouts in milliseconds as the wire carries them: at most 2^32-1.
std::uint32_t wireMs(std::chrono::milliseconds ms);

// The sockets (store_socket.cpp): the server's listening socket and a client's blocking
// exchange with a deadline, so no peer can stall a rank past its timeout.
using SteadyTime = std::chrono::steady_clock::time_point;

// A non-blocking listening socket on host:port only. Throws "address already in use" for
// EADDRINUSE.
int listenOn(const std::string& host, int port);

// Connects to host:port, retrying until the deadline (the server may not be up yet).
int connectBefore(const std::string& host, int port, SteadyTime deadline);

// One framed request and its reply. Throws std::runtime_error when the connection is lost,
// the deadline passes, or the reply's length breaks the protocol's limit.
std::string exchange(int fd, const std::string& body, SteadyTime deadline);

} // namespace commprof::rank::store
