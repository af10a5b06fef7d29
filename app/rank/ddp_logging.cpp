// SPDX-License-Identifier: GPL-3.0-or-later
#include "ddp_logging.h"

#include <torch/csrc/distributed/c10d/logger.hpp>

namespace commprof::rank {
namespace {

std::int64_t intOf(const at::DDPLoggingData& d, const char* key) {
    const auto it = d.ints_map.find(key);
    return it == d.ints_map.end() ? 0 : it->second;
}

} // namespace

DdpLoggingRecorder::DdpLoggingRecorder(std::shared_ptr<c10d::Reducer> reducer,
                                       const std::string& hookName, const c10::Device& device) {
    result_.timer = device.is_cpu() ? "cpu" : device.is_cuda() ? "cuda" : device.str();
    try {
        logger_ = std::make_shared<c10d::Logger>(reducer);
        // As DDP's constructor: this also starts the logger's iteration count at 0.
        logger_->set_construction_data_and_log("commprof", {}, -1, /*broadcast_buffers=*/false,
                                               /*has_sync_bn=*/false, /*static_graph=*/false);
        logger_->set_comm_hook(hookName);
        reducer->set_logger(logger_);
        result_.available = true;
    } catch (const std::exception& e) {
        logger_.reset();
        result_.reason = "c10d::Logger could not be set up: " + firstLine(e.what());
    }
}

DdpLoggingRecorder::~DdpLoggingRecorder() = default;

void DdpLoggingRecorder::beforeForward() {
    if (logger_) {
        logger_->set_runtime_stats_and_log();
    }
}

void DdpLoggingRecorder::collect() {
    if (!logger_) {
        return;
    }
    const at::DDPLoggingData d = logger_->get_ddp_logging_data();
    // "iteration" is the Reducer's 1-based count at the sampled iteration's forward; it moves
    // only when a sample was stored.
    const std::int64_t iteration = intOf(d, "iteration");
    if (iteration == lastIteration_) {
        return;
    }
    lastIteration_ = iteration;
    result_.samples.push_back({int(iteration - 1), intOf(d, "forward_compute_time"),
                               intOf(d, "backward_compute_time"), intOf(d, "backward_comm_time"),
                               intOf(d, "backward_compute_comm_overlap_time")});
    result_.avgForwardComputeNs = intOf(d, "avg_forward_compute_time");
    result_.avgBackwardComputeNs = intOf(d, "avg_backward_compute_time");
    result_.avgBackwardCommNs = intOf(d, "avg_backward_comm_time");
    result_.avgOverlapNs = intOf(d, "avg_backward_compute_comm_overlap_time");
}

DdpLoggingResult DdpLoggingRecorder::finish() {
    try {
        beforeForward();
        collect();
    } catch (const std::exception& e) {
        result_.reason = "the last sample failed: " + firstLine(e.what());
    }
    if (result_.available && result_.samples.empty()) {
        result_.available = false;
        result_.reason = "the Reducer sampled no iteration";
    }
    return result_;
}

} // namespace commprof::rank
