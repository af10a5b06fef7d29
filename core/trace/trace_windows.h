// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A folder written by torch.profiler.tensorboard_trace_handler holds one file per profiling
// cycle per worker, WORKER.<time>.pt.trace.json[.gz] (a job that ends mid-cycle adds a partial
// one), so the same rank appears several times. Of each worker's windows the latest complete
// one is read: the latest cycle whose file holds as many steps as that worker's fullest, taken
// at the same cycle for every worker so the ranks stay one job's; what was chosen is said.
// Files not named that way, and workers with one file, are kept as they are.

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace commprof::trace {

// "rank0" and 1733480000123 of ".../rank0.1733480000123.pt.trace.json" (or ".json.gz");
// nullopt for a name the handler does not write.
struct HandlerName {
    std::string worker;
    unsigned long long time = 0;
};
std::optional<HandlerName> handlerName(const std::string& path);

struct WindowChoice {
    std::vector<std::size_t> keep; // indices into the files, in their order
    std::string note;              // empty when nothing was left out
};

// `steps(i)`: the steps file i holds, or nullopt when it could not be read (an unreadable
// window is never chosen; a file outside the handler's naming is kept whatever it holds).
WindowChoice latestCompleteWindows(const std::vector<std::string>& files,
                                   const std::function<std::optional<int>(std::size_t)>& steps);

} // namespace commprof::trace
