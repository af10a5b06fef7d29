#include "file_bytes.h"

#include "trace_reader.h"

#include <simdjson.h>
#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace commprof::trace {
namespace {

void grow(PaddedBuffer& buf, std::size_t minCapacity) {
    if (minCapacity <= buf.capacity) {
        return;
    }
    const std::size_t cap = minCapacity;
    // Default-initialised on purpose: zero-filling would touch every page of a large buffer.
    std::unique_ptr<char[]> fresh(new char[cap + simdjson::SIMDJSON_PADDING]);
    std::memset(fresh.get() + cap, 0, simdjson::SIMDJSON_PADDING);
    if (buf.size) {
        std::memcpy(fresh.get(), buf.data.get(), buf.size);
    }
    buf.data = std::move(fresh);
    buf.capacity = cap;
}

struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
};

// gzip stores the uncompressed size modulo 2^32 in its last four bytes: a good first guess.
std::size_t gzipSizeHint(std::FILE* f, std::size_t fileSize) {
    if (fileSize < 18 || std::fseek(f, -4, SEEK_END) != 0) {
        return fileSize * 4;
    }
    unsigned char tail[4] = {};
    const bool ok = std::fread(tail, 1, 4, f) == 4;
    std::fseek(f, 0, SEEK_SET);
    if (!ok) {
        return fileSize * 4;
    }
    std::size_t hint = tail[0] | (tail[1] << 8) | (tail[2] << 16) | (std::size_t(tail[3]) << 24);
    return hint < fileSize ? fileSize * 4 : hint + 1;
}

} // namespace

PaddedBuffer copyToPadded(const char* text, std::size_t size) {
    PaddedBuffer buf;
    grow(buf, size + 1);
    std::memcpy(buf.data.get(), text, size);
    buf.size = size;
    return buf;
}

PaddedBuffer readMaybeGzip(const std::string& path) {
    std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
    if (!file) {
        throw TraceError(path + ": cannot open: " + std::strerror(errno));
    }
    std::fseek(file.get(), 0, SEEK_END);
    const long end = std::ftell(file.get());
    std::fseek(file.get(), 0, SEEK_SET);
    const std::size_t fileSize = end > 0 ? static_cast<std::size_t>(end) : 0;

    unsigned char magic[2] = {};
    const bool gz =
        std::fread(magic, 1, 2, file.get()) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
    std::fseek(file.get(), 0, SEEK_SET);

    PaddedBuffer buf;
    if (!gz) {
        grow(buf, fileSize + 1);
        buf.size = std::fread(buf.data.get(), 1, fileSize, file.get());
        return buf;
    }
    grow(buf, gzipSizeHint(file.get(), fileSize));
    file.reset();

    gzFile in = gzopen(path.c_str(), "rb");
    if (!in) {
        throw TraceError(path + ": cannot open gzip stream");
    }
    gzbuffer(in, 1 << 17);
    for (;;) {
        if (buf.capacity == buf.size) {
            grow(buf, buf.capacity * 2); // only when the size hint was wrong (input over 4 GiB)
        }
        const auto want =
            static_cast<unsigned>(std::min<std::size_t>(buf.capacity - buf.size, 1u << 30));
        const int got = gzread(in, buf.data.get() + buf.size, want);
        if (got < 0) {
            int code = 0;
            const std::string why = gzerror(in, &code);
            if (code == Z_BUF_ERROR) { // input ended mid-stream: keep what was decompressed
                buf.damage = "gzip stream ends early (" + why + ") after " +
                             std::to_string(buf.size) + " decompressed bytes";
                break;
            }
            gzclose(in);
            std::string message = path;
            message +=
                ": corrupt gzip data after " + std::to_string(buf.size) + " decompressed bytes: ";
            message += why;
            throw TraceError(message);
        }
        if (got == 0) {
            break;
        }
        buf.size += static_cast<std::size_t>(got);
    }
    gzclose(in);
    return buf;
}

} // namespace commprof::trace
