// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// `commprof trace whatif`: a DDP job's recorded step replayed by the step model (step_model.h)
// from its traces, then every requested scenario (bucket cap, first bucket, hook, link
// bandwidth, world size) predicted the same way, each with an uncertainty, and a recommendation
// that keeps what the job has when the gain is inside the uncertainty.
//
// The recorded step is predicted from its parts (the medians of forward, backward compute, DDP's
// finalize and the optimizer, the gradients' ready times, the buckets as recorded, each collective's cost fitted
// from the trace's own collectives) with nothing fitted to the step itself; its buckets are the
// trace's, in count and bytes. A collective's cost at another world size or bandwidth follows the
// ring all-reduce (collective_cost.h); compute per rank is taken as unchanged (the same batch per
// rank); a hook puts its bytes on the wire (spec/comm_hooks.h) and does its own work (casts
// before, a copy after, a collective dearer per byte in another dtype: hook_work.h) where a
// calibration covers it on the trace's backend.

#include "analysis/collective_cost.h"
#include "analysis/ddp_params.h"
#include "analysis/ddp_step_graph.h"
#include "analysis/hook_work.h"
#include "analysis/trace_ready_times.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace commprof::analysis {

struct WhatIfOptions {
    std::vector<double> capsMb; // none: the recorded cap and the standard caps
    std::optional<double> firstBucketMb;
    QStringList hooks; // none: the recorded hook
    double bandwidthX = 1;
    std::optional<int> worldSize;
    std::optional<double> recordedCapMb;
    std::optional<HookCalibration> hookCalibration; // none: the built-in one
    std::optional<double> computeContention;        // none: by backend (collective_cost.h)
};

struct Scenario {
    double capMb = 0, firstBucketMb = 0;
    QString hook;
    double bandwidthX = 1;
    int worldSize = 0;
    int buckets = 0;
    double stepMs = 0, uncertaintyMs = 0, exposedMs = 0;
    // The rest of stepMs: forward and backward compute, and the optimizer (unchanged by the
    // scenario's settings: compute per rank is taken as the recorded).
    double computeMs = 0, optimizerMs = 0;
};

struct WhatIf {
    double recordedCapMb = 0, recordedFirstBucketMb = 1;
    bool firstBucketFollowsCap = false; // another cap's scenario has its first bucket at the cap
    QString recordedCapFrom;            // --recorded-bucket-cap-mb, --params, the recorded buckets
    QString hook;
    int worldSize = 0;
    double stepMs = 0; // the recorded median step
    double replayedStepMs = 0, replayedExposedMs = 0;
    double replayedComputeMs = 0, replayedOptimizerMs = 0; // the rest of replayedStepMs
    int recordedBuckets = 0;
    std::vector<double> recordedBucketBytes;
    bool ruleReproducesLayout = false;
    CollectiveCost cost; // at the recorded world size
    QString costMethod;
    // The recorded steps' relative spread (half the interquartile range over the median) and
    // the cost fit's median relative error: a scenario's uncertainty is its step times the one,
    // beside the change of its step when every collective costs that much more or less.
    double stepSpreadFraction = 0;
    double costErrorFraction = 0;
    double replayedUncertaintyMs = 0;
    std::vector<Scenario> scenarios;
    struct {
        double capMb = 0;
        QString hook;
        double stepMs = 0;
        bool keep = true;
        QString reason;
    } recommendation;
    QStringList notes;
};

// nullopt with *why when the traces cannot be replayed.
std::optional<WhatIf> whatIf(const DdpStepGraph& graph, const DdpParams* params,
                             const WhatIfOptions& options, QString* why);

QJsonObject toJson(const WhatIf& w);
QString describe(const WhatIf& w);

} // namespace commprof::analysis
