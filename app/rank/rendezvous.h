// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Rendezvous over TCPStore, the rank's process group, and the formation check: every rank must
// hold the same model. gloo binds the address the launcher gave this rank (COMMPROF_BIND_ADDR:
// its emulated host's, where the runner placed it on one), else MASTER_ADDR as before; rank 0's
// store stays at MASTER_ADDR, which every host reaches.

#include "c10d_compat.h"
#include "options.h"

#include <string>
#include <vector>

namespace commprof::rank {

struct RendezvousError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct RankGroup {
    c10::intrusive_ptr<c10d::Store> store;
    ProcessGroupPtr pg;
};

// For training and the sweep alike.
RankGroup joinGroup(const RankOptions& o);

// One entry per parameter and buffer, in order: "name dtype[shape]".
std::vector<std::string>
modelSignature(const std::vector<std::pair<std::string, at::Tensor>>& parameters,
               const std::vector<std::pair<std::string, at::Tensor>>& buffers);
std::string signatureHash(const std::vector<std::string>& signature);

// Publishes this rank's signature and compares every rank's with rank 0's. Throws
// RendezvousError naming both ranks and the first differing entry; every rank reaches the
// same verdict, so all of them stop.
void checkFormation(c10d::Store& store, const RankOptions& o,
                    const std::vector<std::string>& signature);

} // namespace commprof::rank
