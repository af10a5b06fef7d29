// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// --hook NAME onto the Reducer: the one place that knows which algorithm a name means and
// whether the backend at hand can run it.

#include "bucket_timer.h"
#include "hooks/powersgd_hook.h"
#include "options.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace commprof::rank {

// Registers the hook and returns PowerSGD's counters (null for the other hooks); throws
// std::runtime_error naming the hook and the reason when this backend cannot run it (every rank
// reaches the same verdict: the check is a collective).
std::shared_ptr<const PowerSgdCounters>
installHook(c10d::Reducer& reducer, const RankOptions& options, const ProcessGroupPtr& pg,
            std::shared_ptr<BucketLog> log, const c10::Device& device);

// The hooks this build has, and for the gloo_cpu layer (the one any machine can try) the hooks
// its gloo cannot run, each with the backend's reason: for `--version --json`, so a plan can
// refuse a cell before it runs.
const std::vector<std::string>& hookNames();
std::map<std::string, std::string> glooCpuRefusals();

} // namespace commprof::rank
