// SPDX-License-Identifier: GPL-3.0-or-later
#include "process_group.h"

#include "rendezvous.h"

#include <chrono>
#include <cstdlib>

namespace commprof::rank {

std::string bindAddress(const RankOptions& o) {
    const char* own = std::getenv("COMMPROF_BIND_ADDR");
    return own && *own ? std::string(own) : o.masterAddr;
}

RankGroup joinGroup(const RankOptions& o) {
    RankGroup g;
    g.store = connectStore(o);
    const auto timeout = std::chrono::milliseconds(std::int64_t(o.collectiveTimeoutS * 1000));
    g.pg = o.backend == "nccl"
               ? makeNcclGroup(g.store, o.rank, o.worldSize, timeout)
               : makeGlooGroup(g.store, o.rank, o.worldSize, bindAddress(o), timeout);
    return g;
}

} // namespace commprof::rank
