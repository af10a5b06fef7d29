// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One rank's DDP run: setup as Python DDP does it, then the timed loop over c10d::Reducer.

#include "rank_result.h"

namespace commprof::rank {

// Prints progress as JSON lines on stdout; throws on any failure.
RankResult runDdp(const RankOptions& options);

} // namespace commprof::rank
