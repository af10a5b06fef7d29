// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Rendezvous over TCPStore and the formation check: every rank must hold the same model.

#include "c10d_compat.h"
#include "options.h"

#include <string>
#include <vector>

namespace commprof::rank {

struct RendezvousError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

c10::intrusive_ptr<c10d::Store> connectStore(const RankOptions& o);

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
