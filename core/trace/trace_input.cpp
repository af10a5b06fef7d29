// SPDX-License-Identifier: GPL-3.0-or-later
#include "trace_input.h"

#include "trace_damage.h"
#include "trace_error.h"
#include "trace_file.h"

#include <isa-l/igzip_lib.h>
#include <simdjson.h>

#include <sys/mman.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

namespace commprof::trace {
namespace {

constexpr std::size_t kReadBlock = std::size_t(4) << 20;

std::string limitMessage(const std::string& path, std::uint64_t limit, const char* how) {
    return path + ": " + how + " more than " + formatByteSize(limit) +
           ", the limit on a trace's size; raise it with " + kMaxTraceSizeFlag + " SIZE or " +
           kMaxTraceSizeEnv + "=SIZE (for example 8G)";
}

// Grows buf to at least minCapacity usable bytes (plus padding), keeping its contents.
void reserve(PaddedBuffer& buf, std::size_t minCapacity) {
    if (minCapacity <= buf.capacity && buf.data) {
        return;
    }
    buf.data.resize(minCapacity + simdjson::SIMDJSON_PADDING);
    buf.capacity = minCapacity;
}

// A Chrome trace starts with '{' or '[' after any whitespace. Checked on the first inflated
// bytes, so a bomb of zeros stops at once instead of at the size limit.
void checkLooksLikeJson(const PaddedBuffer& buf, const std::string& path) {
    const auto* text = reinterpret_cast<const unsigned char*>(buf.data.get());
    const auto* c =
        std::find_if_not(text, text + buf.size, [](unsigned char b) { return std::isspace(b); });
    if (c != text + buf.size && *c != '{' && *c != '[') {
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02x", *c);
        fail(path, std::string("not a Chrome trace: the decompressed text starts with byte ") +
                       hex + " at offset " + std::to_string(c - text) +
                       ", not with a JSON object or array");
    }
}

const char* isalError(int rc) {
    static const std::pair<int, const char*> kErrors[] = {
        {ISAL_INVALID_BLOCK, "invalid deflate block"},
        {ISAL_INVALID_SYMBOL, "invalid deflate symbol"},
        {ISAL_INVALID_LOOKBACK, "invalid back-reference distance"},
        {ISAL_INVALID_WRAPPER, "invalid gzip header"},
        {ISAL_UNSUPPORTED_METHOD, "unsupported compression method"},
        {ISAL_INCORRECT_CHECKSUM, "checksum mismatch"}};
    const auto* e = std::ranges::find(kErrors, rc, &std::pair<int, const char*>::first);
    return e == std::end(kErrors) ? "corrupt gzip data" : e->second;
}

void readPlain(const TraceFile& file, const ReadOptions& options, PaddedBuffer& buf) {
    const std::string& path = file.path();
    const std::uint64_t fileSize = file.size();
    if (fileSize > options.maxTextBytes) {
        throw TraceError(limitMessage(path, options.maxTextBytes, "is"));
    }
    reserve(buf, std::size_t(fileSize) + 1);
    while (buf.size < fileSize) {
        const std::size_t got = file.read(buf.data.get() + buf.size,
                                          std::min<std::size_t>(fileSize - buf.size, kReadBlock));
        if (got == 0) {
            break; // the file shrank while being read: keep what is there
        }
        buf.size += got;
    }
}

void readGzip(const TraceFile& file, const ReadOptions& options, PaddedBuffer& buf) {
    const std::string& path = file.path();
    const std::uint64_t limit = options.maxTextBytes;
    // The size the gzip trailer gives is a good first guess, capped by the limit so a lying
    // trailer cannot make us allocate too much.
    const std::uint64_t hint = file.textSizeHint();
    const std::uint64_t guess = hint ? hint + 1 : file.size() * 8;
    reserve(buf, std::size_t(
                     std::min<std::uint64_t>(std::max<std::uint64_t>(guess, 1 << 16), limit + 1)));
    std::vector<unsigned char> in(kReadBlock);
    auto state = std::make_unique<inflate_state>();
    isal_inflate_init(state.get());
    state->crc_flag = ISAL_GZIP;
    bool endOfFile = false;
    bool checkedStart = false;
    bool memberDone = false;
    std::uint64_t trailing = 0;
    for (;;) {
        if (state->avail_in == 0 && !endOfFile) {
            const std::size_t got = file.read(in.data(), in.size());
            endOfFile = got == 0;
            state->next_in = in.data();
            state->avail_in = std::uint32_t(got);
        }
        if (memberDone) {
            if (state->avail_in == 0) {
                if (endOfFile) {
                    break;
                }
                continue;
            }
            // Another gzip member follows (concatenated files), or trailing garbage.
            if (state->avail_in >= 2 && state->next_in[0] == 0x1f && state->next_in[1] == 0x8b) {
                uint8_t* next = state->next_in;
                const std::uint32_t avail = state->avail_in;
                isal_inflate_reset(state.get());
                state->crc_flag = ISAL_GZIP;
                state->next_in = next;
                state->avail_in = avail;
                memberDone = false;
            } else {
                trailing += state->avail_in;
                state->avail_in = 0;
                continue;
            }
        }
        // buf.size never exceeds the limit here: the check after each inflate throws first.
        if (buf.size == buf.capacity) {
            reserve(buf, std::size_t(
                             std::min<std::uint64_t>(std::uint64_t(buf.capacity) * 2, limit + 1)));
        }
        const std::size_t room = std::min<std::size_t>(buf.capacity - buf.size, 1u << 30);
        state->next_out = reinterpret_cast<uint8_t*>(buf.data.get()) + buf.size;
        state->avail_out = std::uint32_t(room);
        const int rc = isal_inflate(state.get());
        buf.size += room - state->avail_out;
        if (rc < 0) {
            fail(path, std::string(isalError(rc)) + " after " + std::to_string(buf.size) +
                           " decompressed bytes");
        }
        if (!checkedStart && buf.size >= 64) {
            checkLooksLikeJson(buf, path);
            checkedStart = true;
        }
        if (buf.size > limit) {
            throw TraceError(limitMessage(path, limit, "decompresses to"));
        }
        if (state->block_state == ISAL_BLOCK_FINISH) {
            memberDone = true;
            continue;
        }
        if (state->avail_in == 0 && endOfFile && state->avail_out != 0) {
            buf.damage = "gzip stream " + std::string(kEndsEarly) + " after " +
                         std::to_string(buf.size) + " decompressed bytes";
            break;
        }
    }
    if (!checkedStart) {
        checkLooksLikeJson(buf, path);
    }
    if (trailing) {
        buf.note = std::to_string(trailing) + " bytes after the end of the gzip data were ignored";
    }
}

} // namespace

MappedBytes::~MappedBytes() {
    if (data_) {
        ::munmap(data_, bytes_);
    }
}

MappedBytes::MappedBytes(MappedBytes&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

MappedBytes& MappedBytes::operator=(MappedBytes&& other) noexcept {
    if (this != &other) {
        if (data_) {
            ::munmap(data_, bytes_);
        }
        data_ = std::exchange(other.data_, nullptr);
        bytes_ = std::exchange(other.bytes_, 0);
    }
    return *this;
}

void MappedBytes::resize(std::size_t bytes) {
    void* p =
        data_ ? ::mremap(data_, bytes_, bytes, MREMAP_MAYMOVE)
              : ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        throw std::bad_alloc();
    }
    data_ = static_cast<char*>(p);
    bytes_ = bytes;
    ::madvise(data_, bytes_, MADV_HUGEPAGE); // advice only: fine when the system says no
}

std::optional<std::uint64_t> parseByteSize(std::string_view text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
        text.remove_suffix(1);
    }
    if (text.empty()) {
        return std::nullopt;
    }
    // K, M, G, T: 2^10, 2^20, 2^30, 2^40.
    const std::size_t power =
        std::string_view("KMGT").find(char(std::toupper(static_cast<unsigned char>(text.back()))));
    const double scale = power == std::string_view::npos ? 1 : std::ldexp(1.0, 10 * int(power + 1));
    if (scale != 1) {
        text.remove_suffix(1);
    }
    const std::string number(text);
    char* end = nullptr;
    const double value = std::strtod(number.c_str(), &end);
    if (number.empty() || end != number.c_str() + number.size() || !std::isfinite(value) ||
        value < 1 || value * scale > 9.0e18) {
        return std::nullopt;
    }
    return std::uint64_t(value * scale);
}

std::string formatByteSize(std::uint64_t bytes) {
    const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    int unit = 0;
    double v = double(bytes);
    while (v >= 1024 && unit < 4 && std::fmod(v, 1024) == 0) {
        v /= 1024;
        ++unit;
    }
    char text[64];
    std::snprintf(text, sizeof text, "%.0f %s", v, units[unit]);
    return text;
}

std::string formatRoundedByteSize(double bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int unit = 0;
    double v = bytes;
    // 1023.99 KiB reads as 1 MiB: the unit is chosen after the rounding it will get.
    while (unit < 4 && v >= 1024 * (1 - 5e-5)) {
        v /= 1024;
        ++unit;
    }
    char text[64];
    std::snprintf(text, sizeof text, "%.4g %s", v, units[unit]);
    return text;
}

ReadOptions ReadOptions::fromEnvironment() {
    ReadOptions o;
    if (const char* v = std::getenv(kMaxTraceSizeEnv); v && *v) {
        const auto size = parseByteSize(v);
        if (!size) {
            throw TraceError(std::string(kMaxTraceSizeEnv) +
                             ": expected a size such as 4G, 512M or 1073741824, got '" + v + "'");
        }
        o.maxTextBytes = *size;
    }
    return o;
}

PaddedBuffer copyToPadded(const char* text, std::size_t size) {
    PaddedBuffer buf;
    reserve(buf, size + 1);
    std::memcpy(buf.data.get(), text, size);
    buf.size = size;
    std::memset(buf.data.get() + buf.size, 0, simdjson::SIMDJSON_PADDING);
    return buf;
}

PaddedBuffer readTraceText(const std::string& path, const ReadOptions& options) {
    const TraceFile file(path);
    PaddedBuffer buf;
    if (file.gzip()) {
        readGzip(file, options, buf);
    } else {
        readPlain(file, options, buf);
    }
    reserve(buf, buf.size + 1);
    std::memset(buf.data.get() + buf.size, 0, simdjson::SIMDJSON_PADDING);
    return buf;
}

} // namespace commprof::trace
