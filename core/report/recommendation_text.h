// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// `commprof recommend`'s outputs (analysis/recommendation.h), in JSON (docs/cli.md) and in text:
// rendering lives here, beside the other outputs, so analysis only computes.

#include "analysis/recommendation.h"

#include <QJsonObject>
#include <QString>

namespace commprof::report {

// One line a user acts on: "set bucket_cap_mb: 4 (now 25): -3.10 ms a step (±1.20 ms,
// measured at both caps)", "keep bucket_cap_mb: 25: ...", or "no recommendation: REASON".
QString actionLine(const analysis::CapGroup& g);
// "mlp2m on gloo_cpu, world size 2, hook allreduce": what the action line is about.
QString groupName(const analysis::CapGroup& g);

QJsonObject toJson(const analysis::Recommendations& r);
// "mlp2m on gloo_cpu, world size 2, hook allreduce", with the settings that tell it from a
// group that would read the same ("batch_size 8"): what a recommendation line is about.
QString groupLabel(const analysis::CapGroup& g);
// A table per group, its recommendation and its error, or what it lacks.
QString describe(const analysis::CapGroup& g);
// A line per cell left out: "left out: ID (incomplete): reasons".
QString describeDropped(const analysis::Recommendations& r);
// What a matrix loses when `applied`'s cap goes into its model's entry, which every hook, layer
// and world size of the model reads: the model's other groups recommended another cap ("mlp2m on
// gloo_cpu, world size 2, hook powersgd: 0.5 MiB", joined by "; "); empty where none was.
QString otherAdviceOfModel(const std::vector<analysis::CapGroup>& groups,
                           const analysis::CapGroup& applied);

} // namespace commprof::report
