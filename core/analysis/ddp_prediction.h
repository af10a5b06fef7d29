#pragma once
// The sweep's cost model against DDP: each bucket's all-reduce predicted from the fit
// time = alpha + bytes * beta of the same layer and world size, against the backend's own span
// for that bucket (what it took once it ran) and the hook's interval (launch to completion,
// queueing included).

#include "analysis/cell_metrics.h"
#include "analysis/collective_sweep.h"

#include <vector>

namespace commprof::analysis {

struct BucketPrediction {
    int index = 0;
    double bytes = 0;
    double predictedUs = 0;
    double measuredUs = 0; // median backend span over every rank and traced step
    double queuedUs = 0;   // median wait from launch to the backend span's start
    int samples = 0;
    // The sweep's time over DDP's at this size: the fraction of the sweep's bandwidth DDP
    // reached.
    double sweepFraction() const { return measuredUs > 0 ? predictedUs / measuredUs : 0.0; }
};

struct DdpPrediction {
    int rankSteps = 0;             // traced steps, over all ranks, with every bucket matched
    double predictedUsPerStep = 0; // sum over one step's buckets of the prediction
    double measuredUsPerStep = 0;  // median over rank-steps of the sum of backend spans
    double measuredMinUs = 0, measuredMaxUs = 0; // their range
    double queuedUsPerStep = 0;                  // median over rank-steps of the summed queueing
    double hookUsPerStep = 0;                    // median over rank-steps of the hook's union
    std::vector<BucketPrediction> buckets;       // by bucket index
    bool withinRange() const {
        return predictedUsPerStep >= measuredMinUs && predictedUsPerStep <= measuredMaxUs;
    }
    // predicted / measured - 1: how far off the prediction is.
    double offBy() const {
        return measuredUsPerStep > 0 ? predictedUsPerStep / measuredUsPerStep - 1.0 : 0.0;
    }
};

// nullopt when the fit was refused or no step has every bucket matched.
std::optional<DdpPrediction> predictDdp(const std::vector<RankFigures>& ranks,
                                        const LinearFit& fit);

} // namespace commprof::analysis
