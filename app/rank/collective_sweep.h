// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// commprof-rank --sweep: collectives over message sizes from 8 B doubling to a maximum, like
// nccl-tests' *_perf. Each size gets warmup iterations, then timed ones with a barrier before
// each, so that no iteration queues behind the previous one. Writes sweep_rank{R}.json
// (docs/formats.md).

#include "options.h"

#include <string>

namespace commprof::rank {

// Throws on any failure; returns the file written.
std::string runSweep(const RankOptions& options);

} // namespace commprof::rank
