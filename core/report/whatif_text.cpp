// SPDX-License-Identifier: GPL-3.0-or-later
#include "whatif_text.h"

#include "analysis/number_text.h"
#include "results/json_kind.h"

#include <QJsonArray>

namespace commprof::report {

QJsonObject toJson(const analysis::WhatIf& w) {
    // Where every input of the predictions came from (docs/cli.md).
    QJsonObject hooks;
    for (const auto& [hook, from] : w.hookWorkFrom) {
        hooks[hook] = from;
    }
    QJsonObject inputs{{"collective_cost", w.costFrom},
                       {"compute_contention", w.contentionFrom},
                       {"hook_work", hooks}};
    if (!w.costSweep.isEmpty()) {
        inputs["sweep_cell"] = w.costSweep;
    }
    const auto scenarioJson = [](const analysis::Scenario& s) {
        return QJsonObject{{"bucket_cap_mb", s.capMb},
                           {"first_bucket_mb", s.firstBucketMb},
                           {"hook", s.hook},
                           {"bandwidth_x", s.bandwidthX},
                           {"world_size", s.worldSize},
                           {"buckets", s.buckets},
                           {"step_ms", s.stepMs},
                           {"uncertainty_ms", s.uncertaintyMs},
                           {"exposed_comm_ms", s.exposedMs},
                           {"recorded_layout", s.recordedLayout},
                           {"no_change", s.noChange},
                           {"hook_work_unknown", s.hookWorkUnknown},
                           {"model_step_ms", s.modelStepMs}};
    };
    return QJsonObject{
        {"interval", analysis::kIntervalMeaning},
        {"recorded", QJsonObject{{"bucket_cap_mb", w.recordedCapMb},
                                 {"bucket_cap_from", w.recordedCapFrom},
                                 {"settings_from", w.settingsFrom},
                                 {"first_bucket_mb", w.recordedFirstBucketMb},
                                 {"first_bucket_follows_cap", w.firstBucketFollowsCap},
                                 {"hook", w.hook},
                                 {"backend", w.backend},
                                 {"device", w.onDevice ? "device" : "cpu"},
                                 {"world_size", w.worldSize},
                                 {"step_ms", w.stepMs},
                                 {"replayed_step_ms", w.replayed.stepMs},
                                 {"replayed_exposed_comm_ms", w.replayed.exposedMs},
                                 {"replayed_uncertainty_ms", w.replayed.uncertaintyMs},
                                 {"replay_error", w.replayErrorFraction},
                                 {"step_spread", w.stepSpreadFraction},
                                 {"buckets", w.recordedBuckets},
                                 {"bucket_bytes", results::jsonArray(w.recordedBucketBytes)},
                                 {"rule_reproduces_buckets", w.ruleReproducesLayout},
                                 {"rule_differs", w.ruleDiffers}}},
        {"cost", QJsonObject{{"alpha_us", w.cost.alphaUs},
                             {"beta_us_per_byte", w.cost.betaUsPerByte},
                             {"latency_low_us", w.latencyLowUs},
                             {"latency_high_us", w.latencyHighUs},
                             {"latency_reference_bytes", w.latencyReferenceBytes},
                             {"method", w.costMethod},
                             {"relative_error", w.costErrorFraction},
                             {"compute_contention", w.cost.contention},
                             {"compute_contention_low", w.contentionLow},
                             {"compute_contention_high", w.contentionHigh},
                             {"compute_contention_from", w.contentionFrom},
                             {"cores_share_low", w.coresShareLow},
                             {"cores_share_high", w.coresShareHigh},
                             {"algorithm", "ring all-reduce"}}},
        {"scenarios", results::jsonArray(w.scenarios, scenarioJson)},
        {"recommendation", QJsonObject{{"bucket_cap_mb", w.recommendation.capMb},
                                       {"hook", w.recommendation.hook},
                                       {"step_ms", w.recommendation.stepMs},
                                       {"keep", w.recommendation.keep},
                                       {"baseline", scenarioJson(w.recommendation.baseline)},
                                       {"gain_ms", w.recommendation.gainMs},
                                       {"uncertainty_ms", w.recommendation.uncertaintyMs},
                                       {"reason", w.recommendation.reason}}},
        {"inputs", inputs},
        {"notes", QJsonArray::fromStringList(w.notes)}};
}

QString describe(const analysis::WhatIf& w) {
    QString out =
        QString("recorded: %1 MiB (from %2; first bucket %3 MiB%10), hook %4, world size "
                "%5, %6; median step %7 ms, replayed %8 ms +- %11 (%9 %)\n")
            .arg(analysis::mb(w.recordedCapMb), w.recordedCapFrom,
                 analysis::mb(w.recordedFirstBucketMb), w.hook)
            .arg(w.worldSize)
            .arg(analysis::countText(w.recordedBuckets, "bucket"))
            .arg(w.stepMs, 0, 'f', 2)
            .arg(w.replayed.stepMs, 0, 'f', 2)
            .arg(w.stepMs > 0 ? (w.replayed.stepMs - w.stepMs) / w.stepMs * 100 : 0, 0, 'f', 1)
            .arg(w.firstBucketFollowsCap ? ", follows the cap" : ", kept at every cap")
            .arg(w.replayed.uncertaintyMs, 0, 'f', 2);
    if (!w.ruleDiffers.isEmpty()) {
        out += QString("the recorded settings are replayed with the recorded buckets: %1\n")
                   .arg(w.ruleDiffers);
    }
    out += QString("collective cost: %1 us + %2 us/B (%3)\n")
               .arg(w.cost.alphaUs, 0, 'f', 1)
               .arg(w.cost.betaUsPerByte, 0, 'g', 3)
               .arg(w.costMethod);
    out += QString("compute contention: %1 (90 % interval %2..%3, from %4)\n")
               .arg(w.cost.contention, 0, 'g', 3)
               .arg(w.contentionLow, 0, 'g', 3)
               .arg(w.contentionHigh, 0, 'g', 3)
               .arg(w.contentionFrom);
    out += QString("+- is a %1\n").arg(analysis::kIntervalMeaning);
    out += "  cap MiB  first MiB  hook            bw x  ranks  buckets     step ms  +- ms  "
           "exposed ms\n";
    for (const analysis::Scenario& s : w.scenarios) {
        out +=
            QString("  %1  %2  %3  %4  %5  %6  %7  %8  %9%10\n")
                .arg(analysis::mb(s.capMb), 7)
                .arg(analysis::mb(s.firstBucketMb), 9)
                .arg(s.hook, -14)
                .arg(s.bandwidthX, 4, 'g', 3)
                .arg(s.worldSize, 5)
                .arg(s.buckets, 7)
                .arg(s.stepMs, 10, 'f', 2)
                .arg(s.uncertaintyMs, 5, 'f', 2)
                .arg(s.exposedMs, 10, 'f', 2)
                .arg(s.recordedLayout ? "  (recorded buckets)"
                     : s.hookWorkUnknown
                         ? QString(
                               "  (no change: the hooks' own work is unknown here; with none, %1)")
                               .arg(s.modelStepMs, 0, 'f', 2)
                     : s.noChange ? QString("  (no change: the trace cannot tell; the model's %1)")
                                        .arg(s.modelStepMs, 0, 'f', 2)
                                  : QString());
    }
    out += QString("recommendation: %1\n").arg(w.recommendation.reason);
    for (const QString& n : w.notes) {
        out += "note: " + n + "\n";
    }
    return out;
}

} // namespace commprof::report
