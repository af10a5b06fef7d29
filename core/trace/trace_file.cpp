// SPDX-License-Identifier: GPL-3.0-or-later
#include "trace_file.h"

#include "trace_error.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace commprof::trace {

TraceFile::TraceFile(const std::string& path) : path_(path) {
    // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below anyway.
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd_ < 0) {
        fail(path, std::string("cannot open: ") + std::strerror(errno));
    }
    try {
        struct stat st {};
        if (::fstat(fd_, &st) != 0) {
            fail(path, std::string("cannot stat: ") + std::strerror(errno));
        }
        if (S_ISDIR(st.st_mode)) {
            fail(path, "is a directory, not a trace file");
        }
        if (!S_ISREG(st.st_mode)) {
            const char* kind = S_ISCHR(st.st_mode)    ? "a character device"
                               : S_ISBLK(st.st_mode)  ? "a block device"
                               : S_ISFIFO(st.st_mode) ? "a pipe"
                               : S_ISSOCK(st.st_mode) ? "a socket"
                                                      : "not a regular file";
            fail(path, std::string("is ") + kind + "; only regular files are read as traces");
        }
        ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
        size_ = std::uint64_t(st.st_size);
        unsigned char magic[2] = {};
        gzip_ = ::pread(fd_, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
    } catch (...) {
        ::close(fd_);
        throw;
    }
}

TraceFile::~TraceFile() {
    ::close(fd_);
}

std::uint64_t TraceFile::textSizeHint() const {
    if (!gzip_) {
        return size_;
    }
    unsigned char tail[4] = {};
    if (size_ < 18 || ::pread(fd_, tail, 4, off_t(size_ - 4)) != 4) {
        return 0;
    }
    const std::uint64_t isize =
        tail[0] | (tail[1] << 8) | (tail[2] << 16) | (std::uint64_t(tail[3]) << 24);
    return isize >= size_ ? isize : 0;
}

std::size_t TraceFile::read(void* into, std::size_t want) const {
    for (;;) {
        const ssize_t got = ::read(fd_, into, want);
        if (got >= 0) {
            return std::size_t(got);
        }
        if (errno != EINTR) {
            fail(path_, std::string("cannot read: ") + std::strerror(errno));
        }
    }
}

} // namespace commprof::trace
