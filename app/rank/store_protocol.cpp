// SPDX-License-Identifier: GPL-3.0-or-later
#include "store_protocol.h"

#include <algorithm>
#include <limits>

namespace commprof::rank::store {

void putU32(std::string& out, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) {
        out += char((v >> (8 * i)) & 0xff);
    }
}

void putField(std::string& out, const std::string& bytes) {
    putU32(out, std::uint32_t(bytes.size()));
    out += bytes;
}

std::string frame(const std::string& body) {
    std::string out;
    putU32(out, std::uint32_t(body.size()));
    return out + body;
}

std::uint32_t peekU32(const std::string& bytes) {
    std::uint32_t v = 0;
    for (std::size_t i = 0; i < 4; ++i) {
        v |= std::uint32_t(std::uint8_t(bytes[i])) << (8 * i);
    }
    return v;
}

char Reader::op() {
    if (pos_ >= body_.size()) {
        throw ProtocolError("empty message");
    }
    return body_[pos_++];
}

std::uint32_t Reader::u32() {
    if (body_.size() - pos_ < 4) {
        throw ProtocolError("truncated message");
    }
    const std::uint32_t v = peekU32(body_.substr(pos_, 4));
    pos_ += 4;
    return v;
}

std::string Reader::field(std::size_t maxBytes) {
    const std::uint32_t n = u32();
    if (n > maxBytes) {
        throw ProtocolError("field of " + std::to_string(n) + " bytes (at most " +
                            std::to_string(maxBytes) + ")");
    }
    if (body_.size() - pos_ < n) {
        throw ProtocolError("truncated field");
    }
    std::string s = body_.substr(pos_, n);
    pos_ += n;
    return s;
}

std::vector<std::string> Reader::keys(std::uint32_t minimum) {
    const std::uint32_t n = u32();
    // Every key takes at least its four length bytes: a count the body cannot hold is a lie.
    if (n < minimum || n > kMaxKeysPerRequest || n > (body_.size() - pos_) / 4) {
        throw ProtocolError("key count " + std::to_string(n) + " out of range");
    }
    std::vector<std::string> out;
    out.reserve(n);
    for (std::uint32_t i = 0; i < n; ++i) {
        out.push_back(key());
    }
    return out;
}

void Reader::end() const {
    if (pos_ != body_.size()) {
        throw ProtocolError(std::to_string(body_.size() - pos_) + " bytes after the message");
    }
}

std::uint32_t wireMs(std::chrono::milliseconds ms) {
    return std::uint32_t(std::clamp<std::chrono::milliseconds::rep>(
        ms.count(), 0, std::numeric_limits<std::uint32_t>::max()));
}

} // namespace commprof::rank::store
