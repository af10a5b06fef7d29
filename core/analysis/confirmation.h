// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// `commprof confirm`'s result: a recorded job (A) and a candidate setting (B) measured in
// alternating runs (paired_difference.h), beside what `trace whatif` predicted for the same
// change and whether the prediction's interval held. Values in, values out: the runs are made by
// the CLI (app/cli/cmd_confirm.cpp), which writes the JSON that the workbench reads back
// (inputs/confirmation_json.h) when it runs `commprof confirm --json` for a What if page.

#include "analysis/ddp_params.h"
#include "analysis/ddp_step_graph.h"
#include "analysis/hook_work.h"
#include "analysis/paired_difference.h"

#include <QString>

#include <optional>
#include <vector>

namespace commprof::analysis {

struct Setting {
    double bucketCapMb = 25;
    QString hook = "allreduce";
};

struct PredictedDifference {
    double differenceMs = 0; // candidate's step minus the recorded setting's, both as replayed
    double lowMs = 0, highMs = 0;
    double recordedStepMs = 0, candidateStepMs = 0;
};

// The what-if model's step for `candidate` minus its step for `recorded`, over one job's step
// graph; the interval is the candidate scenario's uncertainty around that difference. nullopt
// with *why when the job cannot be replayed.
// `calibration`: this machine's hook calibration, where one is stored.
std::optional<PredictedDifference>
predictDifference(const DdpStepGraph& graph, const DdpParams* params, const Setting& recorded,
                  const Setting& candidate, QString* why,
                  const std::optional<HookCalibration>& calibration = std::nullopt);

struct Confirmation {
    Setting recorded, candidate;
    std::vector<double> aMs, bMs; // each run's steady-state step, in the order run
    std::optional<PairedDifference> measured;
    std::optional<PredictedDifference> predicted;
    QString predictionMissing; // why there is no prediction
    // The measured mean difference inside the predicted interval; nullopt without either.
    std::optional<bool> predictionHeld() const;
};

// The steady state of one run: the median of each rank's step times after the first `skip`
// steps, averaged over ranks. nullopt when no rank ran more than `skip` steps.
std::optional<double> steadyStepMs(const std::vector<std::vector<double>>& rankStepMs, int skip);

} // namespace commprof::analysis
