// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The third instrument: the Reducer's own DDP logging data (c10d::Logger, what Python's
// ddp._get_ddp_logging_data() returns), driven as Python DDP drives it: the logger's
// set_runtime_stats_and_log() at the start of every forward, which stores the times of the
// previous iteration when the Reducer sampled it (its iterations 1-10, then every 100th).

#include "c10d_compat.h"

#include <memory>
#include <string>
#include <vector>

namespace c10d {
class Logger;
}

namespace commprof::rank {

struct DdpLoggingSample {
    int iteration = 0; // 0-based, as the rank file's iterations
    std::int64_t forwardComputeNs = 0;
    std::int64_t backwardComputeNs = 0;
    std::int64_t backwardCommNs = 0;
    std::int64_t overlapNs = 0;
};

struct DdpLoggingResult {
    bool available = false;
    std::string reason; // why not, when not available
    std::string timer;  // the Reducer's timer: cpu or cuda
    std::vector<DdpLoggingSample> samples;
    // The logger's own running averages over every sampled iteration (warmup included).
    std::int64_t avgForwardComputeNs = 0;
    std::int64_t avgBackwardComputeNs = 0;
    std::int64_t avgBackwardCommNs = 0;
    std::int64_t avgOverlapNs = 0;
};

class DdpLoggingRecorder {
public:
    DdpLoggingRecorder(std::shared_ptr<c10d::Reducer> reducer, const std::string& hookName,
                       const c10::Device& device);
    ~DdpLoggingRecorder();
    // Where Python DDP's forward calls it: before prepare_for_forward().
    void beforeForward();
    // Outside the timed region: picks up what beforeForward() stored, if anything.
    void collect();
    // After the loop: the last iteration's times, as the next forward would have stored them.
    DdpLoggingResult finish();

private:
    std::shared_ptr<c10d::Logger> logger_;
    DdpLoggingResult result_;
    std::int64_t lastIteration_ = 0;
};

} // namespace commprof::rank
