// SPDX-License-Identifier: GPL-3.0-or-later
#include "archive_bounds.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <vector>

namespace commprof {
namespace {

// The zip format's records (APPNOTE.TXT 4.3): end of central directory, its zip64 locator and
// record, and a central directory header; the zip64 extended information extra field.
constexpr std::uint32_t kEndSignature = 0x06054b50;
constexpr std::uint32_t kZip64LocatorSignature = 0x07064b50;
constexpr std::uint32_t kZip64EndSignature = 0x06064b50;
constexpr std::uint32_t kHeaderSignature = 0x02014b50;
constexpr std::uint16_t kZip64ExtraId = 0x0001;
constexpr std::size_t kEndBytes = 22;
constexpr std::size_t kLocatorBytes = 20;
constexpr std::size_t kZip64EndBytes = 56;
constexpr std::size_t kHeaderBytes = 46;
constexpr std::size_t kMaxCommentBytes = 0xffff;
constexpr std::uint32_t kUse64 = 0xffffffff;

std::uint64_t le(const unsigned char* p, int bytes) {
    std::uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; --i) {
        v = (v << 8) | p[i];
    }
    return v;
}

bool readAt(std::ifstream& in, std::uint64_t at, std::vector<unsigned char>& into) {
    in.clear();
    in.seekg(std::streamoff(at));
    in.read(reinterpret_cast<char*>(into.data()), std::streamsize(into.size()));
    return in.gcount() == std::streamsize(into.size());
}

struct Directory {
    std::uint64_t offset = 0;
    std::uint64_t size = 0;
};

// Where the central directory is, from the end record (and its zip64 record where the end
// record's fields overflow); nothing when the file has no readable end record.
bool findDirectory(std::ifstream& in, std::uint64_t fileBytes, Directory& dir) {
    const std::uint64_t tail = std::min<std::uint64_t>(fileBytes, kEndBytes + kMaxCommentBytes);
    std::vector<unsigned char> buf(tail);
    if (tail < kEndBytes || !readAt(in, fileBytes - tail, buf)) {
        return false;
    }
    for (std::size_t at = tail - kEndBytes + 1; at-- > 0;) {
        const unsigned char* e = buf.data() + at;
        if (le(e, 4) != kEndSignature) {
            continue;
        }
        dir.size = le(e + 12, 4);
        dir.offset = le(e + 16, 4);
        const std::uint64_t endAt = fileBytes - tail + at;
        if (dir.size != kUse64 && dir.offset != kUse64) {
            return true;
        }
        std::vector<unsigned char> locator(kLocatorBytes);
        std::vector<unsigned char> end64(kZip64EndBytes);
        if (endAt < kLocatorBytes || !readAt(in, endAt - kLocatorBytes, locator) ||
            le(locator.data(), 4) != kZip64LocatorSignature ||
            !readAt(in, le(locator.data() + 8, 8), end64) ||
            le(end64.data(), 4) != kZip64EndSignature) {
            return false;
        }
        dir.size = le(end64.data() + 40, 8);
        dir.offset = le(end64.data() + 48, 8);
        return true;
    }
    return false;
}

// A record's uncompressed size, from its zip64 extra field where the header's overflows.
std::uint64_t unpackedSize(const unsigned char* header, const unsigned char* extra,
                           std::size_t extraBytes) {
    const std::uint64_t size = le(header + 24, 4);
    if (size != kUse64) {
        return size;
    }
    for (std::size_t at = 0; at + 4 <= extraBytes;) {
        const std::uint64_t id = le(extra + at, 2);
        const std::uint64_t bytes = le(extra + at + 2, 2);
        if (id == kZip64ExtraId && bytes >= 8 && at + 4 + 8 <= extraBytes) {
            return le(extra + at + 4, 8); // the uncompressed size comes first
        }
        at += 4 + bytes;
    }
    return size;
}

std::string mb(std::uint64_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f MB", double(bytes) / 1e6);
    return text;
}

} // namespace

std::string archiveTooLarge(const std::string& file) {
    std::ifstream in(file, std::ios::binary | std::ios::ate);
    if (!in) {
        return {};
    }
    const auto fileBytes = std::uint64_t(in.tellg());
    Directory dir;
    if (!findDirectory(in, fileBytes, dir) || dir.offset > fileBytes ||
        dir.size > fileBytes - dir.offset) {
        return {};
    }
    std::vector<unsigned char> headers(dir.size);
    if (!readAt(in, dir.offset, headers)) {
        return {};
    }
    const std::uint64_t allowed = kArchiveUnpackFactor * fileBytes + kArchiveSlackBytes;
    std::uint64_t declared = 0;
    for (std::size_t at = 0; at + kHeaderBytes <= headers.size();) {
        const unsigned char* h = headers.data() + at;
        if (le(h, 4) != kHeaderSignature) {
            break;
        }
        const std::size_t name = le(h + 28, 2);
        const std::size_t extra = le(h + 30, 2);
        const std::size_t comment = le(h + 32, 2);
        if (at + kHeaderBytes + name + extra > headers.size()) {
            break;
        }
        const std::uint64_t size = unpackedSize(h, h + kHeaderBytes + name, extra);
        declared = size > allowed - std::min(declared, allowed) ? allowed + 1 : declared + size;
        if (declared > allowed) {
            return file + ": its zip records declare more than " + mb(allowed) +
                   " unpacked from a file of " + mb(fileBytes) + " (record '" +
                   std::string(reinterpret_cast<const char*>(h + kHeaderBytes), name) + "' alone " +
                   mb(size) + "); torch.jit.save stores its records uncompressed, " +
                   "so this is no TorchScript module it is safe to load (at most " +
                   std::to_string(kArchiveUnpackFactor) + " times the file's size)";
        }
        at += kHeaderBytes + name + extra + comment;
    }
    return {};
}

} // namespace commprof
