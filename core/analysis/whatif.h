// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// `commprof trace whatif`: a DDP job's recorded step replayed by the step model (step_model.h)
// from its traces, then every requested scenario (bucket cap, first bucket, hook, link
// bandwidth, world size) predicted the same way, each with an uncertainty, and a recommendation
// that keeps what the job has when the gain is inside the uncertainty.
//
// The recorded step is predicted from its parts (each traced step's forward, backward compute,
// DDP's finalize, optimizer and gradients' ready times, the buckets as recorded, each
// collective's cost fitted from the trace's own collectives), step by step, the median of those
// replays against the median recorded step, with nothing fitted to the step itself; its buckets are
// the trace's, in count and bytes. A collective's cost at another world size or bandwidth follows
// the ring all-reduce (collective_cost.h); compute per rank is taken as unchanged (the same batch
// per rank); a hook puts its bytes on the wire (spec/comm_hooks.h) and does its own work (casts
// before, a copy after, a collective dearer per byte in another dtype: hook_work.h) where a
// calibration covers it on the trace's backend.

#include "analysis/cell_settings.h"
#include "analysis/collective_cost.h"
#include "analysis/ddp_params.h"
#include "analysis/ddp_step_graph.h"
#include "analysis/hook_work.h"
#include "analysis/trace_ready_times.h"
#include "analysis/whatif_sweep.h"

#include <QString>
#include <QStringList>

#include <map>
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
    std::optional<HookCalibration> hookCalibration; // this machine's; none: hooks' work unknown
    std::optional<double> computeContention;        // none: from the trace (contention.h)
    // The results cell's cell.json beside the traces: its cap, first bucket, hook, backend and
    // device are the recorded ones (a flag above still wins over it).
    std::optional<CellSettings> cell;
    // --sweep RUN: the folder named (empty: none given) and its sweep cells. Where the trace's own
    // collectives do not pin the cost down, the one at the job's world size, backend, device and
    // link prices it (whatif_sweep.h); none there is a refusal naming each cell's file and field.
    QString sweepRun;
    std::vector<SweepOffer> sweeps;
};

// What every "+-" of a what-if is: the half-width of a 90 % interval around the step (the
// recorded steps' spread as a normal's, the step over every collective cost and latency the
// trace allows, and the replay's own error on its recording).
inline constexpr const char* kIntervalMeaning =
    "90 % interval: the recorded steps' spread (1.645 sigma), every collective cost the trace's "
    "collectives allow (the fit's error, and each latency from the least to the most they "
    "support), every share of a collective's time the backward may lose beside it, and the "
    "replay's own error on the recording";

struct Scenario {
    double capMb = 0, firstBucketMb = 0;
    QString hook;
    double bandwidthX = 1;
    int worldSize = 0;
    int buckets = 0;
    double stepMs = 0, uncertaintyMs = 0, exposedMs = 0;
    // The rest of stepMs: forward and backward compute (as recorded, with what the backward
    // loses beside the scenario's collectives), and the finalize and optimizer (the same at every
    // setting: their median over the traced steps).
    double computeMs = 0, optimizerMs = 0;
    // The recorded cap, first bucket and hook: the recorded buckets, replayed as they were
    // (whether or not DDP's rule at that cap reproduces them).
    bool recordedLayout = false;
    // The trace cannot tell this scenario from the recorded settings (over the collective costs
    // it allows, it is faster at some and slower at others): stepMs and its parts are the
    // recorded settings', the interval what it cannot tell; modelStepMs the model's own step.
    bool noChange = false;
    double modelStepMs = 0;
    // Its hook's own work (or the recorded hook's) is not known on this machine: noChange, the
    // interval spanning the step with no such work.
    bool hookWorkUnknown = false;
    // Its buckets go beyond the sizes that pinned the collectives' latency down (smaller or
    // larger than any the trace timed): every latency from none to the shortest collective's
    // time is in its interval, and it is weighed against the recorded settings over them.
    bool latencyOpen = false;
};

// Keep what the job has, or the setting to change to: the best advisable scenario against the
// recorded settings at the scenarios' bandwidth and world size.
struct WhatIfRecommendation {
    double capMb = 0;
    QString hook;
    double stepMs = 0;
    bool keep = true;
    // The recorded settings at the scenarios' bandwidth and world size: what every
    // scenario is weighed against (the replay itself at 1x and the recorded world size).
    Scenario baseline;
    double gainMs = 0;        // baseline's step less the best scenario's
    double uncertaintyMs = 0; // the best scenario's interval
    QString reason;
};

struct WhatIf {
    double recordedCapMb = 0, recordedFirstBucketMb = 1;
    bool firstBucketFollowsCap = false; // another cap's scenario has its first bucket at the cap
    QString recordedCapFrom;            // --recorded-bucket-cap-mb, --params, the recorded buckets
    QString settingsFrom;               // the cell.json read, or empty
    QString hook;
    QString backend; // the process group the model takes the job to have run (gloo, nccl)
    bool onDevice = false;
    int worldSize = 0;
    double stepMs = 0; // the recorded median step
    // The recorded settings at the recorded link and world size: the replay of the recording.
    Scenario replayed;
    int recordedBuckets = 0;
    std::vector<double> recordedBucketBytes;
    bool ruleReproducesLayout = false;
    QString ruleDiffers; // why DDP's rule at the recorded cap makes other buckets; empty if not
    CollectiveCost cost; // at the recorded world size
    // The share of a collective's time the backward loses beside it: its 90 % interval, and
    // where it came from ("trace", "calibration", "given", "backend", "unknown").
    double contentionLow = 0, contentionHigh = 0;
    QString contentionFrom;
    // The cores' share of a collective's time the evidence allows (collective_cost.h): from a
    // calibration's lone loopback all-reduce against the job's per-byte cost (0 without one:
    // the link bounds it), up to 1.
    double coresShareLow = 0, coresShareHigh = 1;
    // Where each 16-bit or low-rank hook's own work came from: "recording" (the recorded hook,
    // its work in the trace), a calibration file, or "unknown".
    std::map<QString, QString> hookWorkFrom;
    QString costMethod;
    QString costFrom;  // "trace", or "sweep" where a sweep cell priced the collectives
    QString costSweep; // that sweep cell's folder; empty otherwise
    // The per-collective latencies the trace's collectives allow, from least to most (each
    // with the per-byte cost that keeps the recorded buckets' mean cost): a scenario's interval
    // spans its step over all of them.
    double latencyLowUs = 0, latencyHighUs = 0;
    double latencyReferenceBytes = 0; // the size every such latency prices as the fit does
    // The recorded steps' relative spread (half the interquartile range over the median), the
    // cost fit's median relative error, and the replay's error on the recording (a fraction of
    // the step): each widens every scenario's interval (kIntervalMeaning).
    double stepSpreadFraction = 0;
    double costErrorFraction = 0;
    double replayErrorFraction = 0;
    std::vector<Scenario> scenarios;
    WhatIfRecommendation recommendation;
    QStringList notes;
};

// The job replayed once: everything a scenario does not change (the recorded settings, the
// collectives' fitted cost, the backward's loss beside them, the latencies and intervals the
// trace allows, the replay of the recording and its error), and what every scenario is
// predicted from (the backward's own compute, the recorded buckets, the recorded hook's model).
struct Replay {
    WhatIf recorded; // no scenarios, no recommendation; the notes so far
    // Each traced step's backward's own compute (the recorded effects of its buckets removed): a
    // step is predicted for each, and the median of those is the scenario's step, as the
    // recorded step is the median of whole steps.
    std::vector<StepProfile> steps;
    // The finalize and the optimizer, their median over `steps`: the same at every setting.
    double restUs = 0;
    std::vector<std::vector<int>> layout; // the recorded buckets
    HookModel recordedHook;
    // Where the trace's own sizes pinned the latency down: the smallest and largest sizes that
    // did (bytes on the wire) and the shortest collective (us); all 0 where none did.
    double pinnedFromBytes = 0, pinnedToBytes = 0, shortestCollectiveUs = 0;
    std::optional<HookCalibration> calibration; // this machine's hooks' work (none: unknown)
    // Why the job's collectives are not DDP's buckets (no advice on DDP's settings); empty if
    // they are.
    QString noAdviceWhy;
};

// One scenario's settings: a cap, a first bucket (none: as the recorded job's DDP would make it
// at that cap), a hook, a bandwidth factor and a world size (none: the recorded one).
struct ScenarioSettings {
    double capMb = 0;
    std::optional<double> firstBucketMb;
    QString hook;
    double bandwidthX = 1;
    std::optional<int> worldSize;
};

// whatIf() in its three steps, so that a caller that changes only the scenario (the What if
// page's controls) replays once. replay() reads `options`' recorded settings, calibration,
// contention and sweep (not its scenarios); nullopt with *why when the traces cannot be
// replayed.
std::optional<Replay> replay(const DdpStepGraph& graph, const DdpParams* params,
                             const WhatIfOptions& options, QString* why);
// One scenario, weighed against the recorded settings at its bandwidth and world size ("no
// change" where the trace cannot tell them apart); nullopt with *why for a hook with no model.
std::optional<Scenario> predict(const Replay& r, const ScenarioSettings& settings, QString* why);
// The recommendation over scenarios of one bandwidth and world size.
WhatIfRecommendation decide(const Replay& r, const std::vector<Scenario>& scenarios);

// `options`' scenarios (caps x hooks at its bandwidth and world size) predicted from `r`, with
// the recommendation and the notes; nullopt with *why for a hook with no model.
std::optional<WhatIf> whatIf(const Replay& r, const WhatIfOptions& options, QString* why);
// replay(), then the above; nullopt with *why when the traces cannot be replayed.
std::optional<WhatIf> whatIf(const DdpStepGraph& graph, const DdpParams* params,
                             const WhatIfOptions& options, QString* why);

} // namespace commprof::analysis
