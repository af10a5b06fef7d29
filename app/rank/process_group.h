// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The rank's rendezvous and process group, for training and the sweep alike. gloo binds the
// address the launcher gave this rank (COMMPROF_BIND_ADDR: its emulated host's, where the
// runner placed it on one), else MASTER_ADDR as before; rank 0's store stays at MASTER_ADDR,
// which every host reaches.

#include "c10d_compat.h"
#include "options.h"

#include <string>

namespace commprof::rank {

struct RankGroup {
    c10::intrusive_ptr<c10d::Store> store;
    ProcessGroupPtr pg;
};

// The address gloo binds for this rank.
std::string bindAddress(const RankOptions& o);

RankGroup joinGroup(const RankOptions& o);

} // namespace commprof::rank
