// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// How a rank process (or the fork server) ends once its main work has returned: its files are
// renamed into place and its libtorch objects destroyed by then. libtorch's static destructors
// deregister each of its thousands of operator kernels, recomputing a dispatch table each time
// (seconds of CPU per rank on 1.13, several times a tiny cell's own work); no result depends on
// them, so the rank flushes its streams and leaves with _exit.

#include <cstdio>
#include <iostream>

#include <unistd.h>

namespace commprof::rank {

[[noreturn]] inline void endRankProcess(int code) {
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    ::_exit(code);
}

} // namespace commprof::rank
