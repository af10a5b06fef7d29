// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// --hook NAME onto the Reducer: the one place that knows which algorithm a name means and
// whether the backend at hand can run it.

#include "bucket_timer.h"
#include "hooks/powersgd_hook.h"
#include "options.h"

#include <memory>

namespace commprof::rank {

struct InstalledHook {
    std::shared_ptr<const PowerSgdCounters> powersgd; // set for powersgd only
};

// Registers the hook; throws std::runtime_error naming the hook and the reason when this
// backend cannot run it (every rank reaches the same verdict: the check is a collective).
InstalledHook installHook(c10d::Reducer& reducer, const RankOptions& options,
                          const ProcessGroupPtr& pg, std::shared_ptr<BucketLog> log,
                          const c10::Device& device);

} // namespace commprof::rank
