// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Where a collective stands in its job, so that the same collective has the same place on every
// rank: its process group and sequence number where the trace carries one ("Seq", PyTorch
// 2.4+), else its step and its order among its process group's collectives in that step. The
// step bounds a missing collective's damage: when a rank's trace lacks one all-reduce, only
// that step's later ones go unmatched, not every one after it in the trace. Shared by the job
// analysis (trace_job.h) and the timeline's matching of a selected slice (rank_matching.h).

#include "step_metrics.h"
#include "trace_event.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace commprof::trace {

struct CollectivePlace {
    std::size_t record = 0;   // index into the records it was computed from
    std::string processGroup; // "default" where the trace names none
    std::optional<std::int64_t> seq;
    std::optional<int> step;   // the step window its start lies in; none outside every step
    std::uint32_t ordinal = 0; // without seq: its order among its group's collectives in the step
    bool operator==(const CollectivePlace& o) const {
        return processGroup == o.processGroup &&
               (seq || o.seq ? seq == o.seq : step == o.step && ordinal == o.ordinal);
    }
};

// The places of the records that start in `window` (all of them without one), in record order.
std::vector<CollectivePlace> collectivePlaces(const std::vector<CollectiveRecord>& records,
                                              const std::vector<StepWindow>& steps,
                                              const std::optional<Span>& window = std::nullopt);

// The step whose window holds t, if any.
std::optional<int> stepAt(const std::vector<StepWindow>& steps, double t);

} // namespace commprof::trace
