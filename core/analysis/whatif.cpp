// SPDX-License-Identifier: GPL-3.0-or-later
#include "whatif.h"

#include "analysis/hook_work.h"
#include "analysis/recommendation.h"
#include "trace/statistics.h"

#include <QJsonArray>

#include <algorithm>
#include <cmath>
#include <set>

namespace commprof::analysis {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// Caps a recorded layout is looked for among when neither a flag nor --params names the cap.
const std::vector<double> kCandidateCapsMb{0.0625, 0.125, 0.25, 0.5, 1,  2,  4,  5,   8,  10,
                                           16,     20,    25,   32,  40, 50, 64, 100, 128};

// The recorded buckets' wire bytes over their gradient bytes under `hook`.
double wireShareOf(const TraceProfile& tp, const HookModel& hook) {
    double gradient = 0, wire = 0;
    for (const std::vector<int>& members : tp.layout) {
        std::vector<const ReadyParam*> params;
        for (const int i : members) {
            params.push_back(&tp.profile.params[std::size_t(i)]);
            gradient += params.back()->bytes;
        }
        wire += hook.wire(params).bytes;
    }
    return gradient > 0 ? wire / gradient : 1.0;
}

// Beside the backward, a collective costs a gloo job on a CPU what its sums and copies take of
// the cores its ranks fill (DDP's CPU jobs run a rank per core set); NCCL and GPU tensors run
// elsewhere. A collective slower than the cores would make it waited on its link for the rest.
// The cores make it about kInJobSlowdown times the calibration's loopback all-reduce, alone on
// the host: beside a backward on 2 cores, under the profiler, measured here at 3.2 times.
constexpr double kInJobSlowdown = 4;

double coresShareOf(const QString& backend, bool onDevice, const WhatIfOptions& options,
                    const HookCalibration& calibration, const CollectiveCost& fitted) {
    if (options.computeContention) {
        return *options.computeContention;
    }
    if (backend != "gloo" || onDevice) {
        return 0;
    }
    const double cores = kInJobSlowdown * calibration.float32UsPerByte;
    return fitted.betaUsPerByte > cores ? cores / fitted.betaUsPerByte : 1.0;
}

struct FittedCost {
    CollectiveCost cost;
    QString method;
    double relativeError = 0; // median |measured - fitted| / measured
};

// Each matched bucket's collective at its bytes, timed as the latest rank ran it (it waited for
// no one): time = alpha + beta x bytes, least squares weighted by 1 / time; with fewer than two
// sizes, or a slope that is not positive, time in proportion to the bytes.
FittedCost fitCost(const DdpStepGraph& g, const TraceProfile& tp, int worldSize,
                   const HookModel& recordedHook, double coresShare) {
    std::vector<std::pair<double, double>> points = tp.costSamples; // bytes, us
    for (const MatchedBucket& m : tp.acrossRanks ? std::vector<MatchedBucket>{} : g.buckets) {
        if (std::size_t(m.index) >= tp.bucketBytes.size()) {
            continue;
        }
        std::optional<double> shortest;
        for (const auto& [rank, b] : m.byRank) {
            if (b->startUs && b->endUs) {
                const double d = *b->endUs - *b->startUs;
                shortest = shortest ? std::min(*shortest, d) : d;
            }
        }
        if (shortest && *shortest > 0 && tp.bucketBytes[std::size_t(m.index)] > 0) {
            points.push_back({tp.bucketBytes[std::size_t(m.index)], *shortest});
        }
    }
    // The samples are the recorded hook's collectives at their gradient bytes: the cost is
    // fitted as a float32 all-reduce of the bytes on the wire, which every hook's model scales.
    const double wireShare = wireShareOf(tp, recordedHook);
    for (auto& [x, y] : points) {
        x *= wireShare;
        y /= std::max(1.0, recordedHook.work.collectiveFactor * coresShare);
    }
    std::erase_if(points, [](const auto& p) { return p.first <= 0; });
    FittedCost out;
    out.cost.worldSize = worldSize;
    if (points.empty()) {
        out.method = "no timed collective in the traces: communication costs nothing";
        return out;
    }
    std::set<double> sizes;
    double s0 = 0, s1 = 0, s2 = 0, sy = 0, sxy = 0;
    for (const auto& [x, y] : points) {
        sizes.insert(x);
        const double w = 1.0 / y;
        s0 += w;
        s1 += w * x;
        s2 += w * x * x;
        sy += w * y;
        sxy += w * x * y;
    }
    const double det = s0 * s2 - s1 * s1;
    double alpha = 0, beta = 0;
    if (sizes.size() >= 2 && det > 0) {
        beta = (s0 * sxy - s1 * sy) / det;
        alpha = (sy - beta * s1) / s0;
    }
    if (beta > 0 && alpha >= 0) {
        out.method = QString("alpha + beta x bytes over %1 timed collectives of %2 sizes")
                         .arg(points.size())
                         .arg(sizes.size());
    } else {
        std::vector<double> perByte;
        for (const auto& [x, y] : points) {
            perByte.push_back(y / x);
        }
        alpha = 0;
        beta = trace::median(perByte).value_or(0);
        out.method = QString("in proportion to the bytes, over %1 timed collectives (%2)")
                         .arg(points.size())
                         .arg(sizes.size() < 2 ? "one size" : "no positive slope with a latency");
    }
    out.cost.alphaUs = alpha;
    out.cost.betaUsPerByte = beta;
    std::vector<double> errors;
    for (const auto& [x, y] : points) {
        errors.push_back(std::fabs(y - out.cost.fittedUs(x)) / y);
    }
    out.relativeError = trace::median(errors).value_or(0);
    return out;
}

// The cost `error` (a fraction) cheaper and dearer.
std::pair<CollectiveCost, CollectiveCost> costBounds(const CollectiveCost& cost, double error) {
    CollectiveCost lower = cost, upper = cost;
    lower.scale = cost.scale * std::max(0.0, 1.0 - error);
    upper.scale = cost.scale * (1.0 + error);
    return {lower, upper};
}

// Half the interquartile range of the recorded steps over their median.
double stepSpread(std::vector<double> steps) {
    if (steps.size() < 2) {
        return 0;
    }
    std::sort(steps.begin(), steps.end());
    const auto at = [&](double q) {
        const double pos = q * double(steps.size() - 1);
        const std::size_t lo = std::size_t(std::floor(pos));
        const std::size_t hi = std::min(lo + 1, steps.size() - 1);
        return steps[lo] + (steps[hi] - steps[lo]) * (pos - double(lo));
    };
    const double median = at(0.5);
    return median > 0 ? (at(0.75) - at(0.25)) / 2 / median : 0;
}

std::vector<double> bytesInReadyOrder(const StepProfile& p) {
    std::vector<double> out;
    for (const ReadyParam& q : p.params) {
        out.push_back(q.bytes);
    }
    return out;
}

QString mb(double v) {
    return QString::number(v, 'g', 6);
}

// Whether another cap moves the first bucket with it: PyTorch 2.x's DDP makes the first bucket
// the cap when the job gave one, 1.13's keeps 1 MiB (DDP's _DEFAULT_FIRST_BUCKET_BYTES) at every
// cap. A first bucket equal to the cap follows it, except on the legacy export (1.13 only) and
// where --params names a first bucket other than its cap.
bool firstBucketFollowsCap(const WhatIf& w, bool legacy, const DdpParams* params) {
    if (legacy) {
        return false;
    }
    if (params && params->firstBucketMb) {
        return params->bucketCapMb && *params->firstBucketMb == *params->bucketCapMb;
    }
    return w.recordedFirstBucketMb == w.recordedCapMb;
}

} // namespace

std::optional<WhatIf> whatIf(const DdpStepGraph& graph, const DdpParams* params,
                             const WhatIfOptions& options, QString* why) {
    const std::optional<TraceProfile> tp = profileFromTraces(graph.traces, params, why);
    if (!tp) {
        return std::nullopt;
    }
    WhatIf w;
    w.notes = graph.notes;
    // The recorded settings: as given, else as --params says, else as the trace shows them.
    const trace::DdpRankSteps& t0 = *graph.traces.front();
    if (t0.worldSize) {
        w.worldSize = *t0.worldSize;
    } else if (params && params->worldSize) {
        w.worldSize = *params->worldSize;
    } else {
        w.worldSize = std::max<int>(2, int(graph.traces.size()));
        w.notes << QString("the traces do not say the world size: taken as %1 (give --params with "
                           "world_size)")
                       .arg(w.worldSize);
    }
    w.hook = params && params->hook ? *params->hook : QString("allreduce");
    const HookCalibration& calibration =
        options.hookCalibration ? *options.hookCalibration : builtInHookCalibration();
    const QString backend = QString::fromStdString(t0.backend);
    // A hook's model with its own work, where the calibration covers it on this backend.
    const auto modelOf = [&](const QString& name) {
        std::optional<HookModel> m = hookModel(name, 1, why);
        if (m) {
            m->work = hookWork(calibration, name, backend, t0.onDevice);
        }
        return m;
    };
    const std::optional<HookModel> recordedHook = modelOf(w.hook);
    if (!recordedHook) {
        return std::nullopt;
    }
    w.recordedBuckets = int(tp->layout.size());
    w.recordedBucketBytes = tp->bucketBytes;
    const std::vector<double> bytes = bytesInReadyOrder(tp->profile);
    const auto reproduces = [&](double firstMb, double capMb) {
        return assignBuckets(bytes, {firstMb * kMiB, capMb * kMiB}) == tp->layout;
    };
    // 0 stands for "the cap". The legacy export is PyTorch 1.13's, whose DDP keeps a 1 MiB
    // first bucket at every cap; a Kineto trace does not name its version, so both are tried.
    const std::vector<double> firstChoices =
        options.firstBucketMb             ? std::vector<double>{*options.firstBucketMb}
        : params && params->firstBucketMb ? std::vector<double>{*params->firstBucketMb}
        : t0.legacy                       ? std::vector<double>{1.0}
                                          : std::vector<double>{1.0, 0.0};
    std::optional<double> cap = options.recordedCapMb;
    w.recordedCapFrom = "--recorded-bucket-cap-mb";
    if (!cap && params && params->bucketCapMb) {
        cap = params->bucketCapMb;
        w.recordedCapFrom = "--params";
    }
    const auto firstFor = [&](double c) {
        for (const double f : firstChoices) {
            if (reproduces(f > 0 ? f : c, c)) {
                return f > 0 ? f : c;
            }
        }
        return firstChoices.front() > 0 ? firstChoices.front() : c;
    };
    if (!cap) {
        // DDP's default 25 MiB where it fits, else the largest candidate that does: every cap
        // between a bucket's bytes without its last gradient and its bytes makes the same
        // buckets, and jobs set round caps.
        std::vector<double> candidates{25};
        candidates.insert(candidates.end(), kCandidateCapsMb.rbegin(), kCandidateCapsMb.rend());
        for (const double c : candidates) {
            for (const double f : firstChoices) {
                if (!cap && reproduces(f > 0 ? f : c, c)) {
                    cap = c;
                }
            }
        }
        w.recordedCapFrom = "the recorded buckets";
    }
    if (!cap && (t0.reducedAfterBackward || t0.reducedPerGradient)) {
        cap = 25;
        w.recordedCapFrom = "none: the job does not reduce through DDP's buckets (DDP's default "
                            "for its scenarios)";
    }
    if (!cap && !tp->bytesFromParams) {
        // Gradient sizes shared evenly within a bucket cannot show where the rule closed it: the
        // recorded buckets are replayed as recorded, and the cap is DDP's default, said so.
        cap = 25;
        w.recordedCapFrom = "DDP's default (assumed: no cap reproduces the recorded buckets from "
                            "sizes estimated from the collectives; give --recorded-bucket-cap-mb)";
    }
    if (!cap) {
        *why = "no bucket cap reproduces the recorded buckets from these gradient sizes: give "
               "the cap the job ran with (--recorded-bucket-cap-mb X, or bucket_cap_mb in "
               "--params)";
        return std::nullopt;
    }
    w.recordedCapMb = *cap;
    w.recordedFirstBucketMb = firstFor(*cap);
    w.firstBucketFollowsCap = firstBucketFollowsCap(w, t0.legacy, params);
    w.ruleReproducesLayout = reproduces(w.recordedFirstBucketMb, w.recordedCapMb);
    if (!w.ruleReproducesLayout) {
        w.notes << QString("DDP's bucket rule at %1 MiB (first bucket %2 MiB) does not reproduce "
                           "the recorded buckets from these gradient sizes: the recorded scenario "
                           "is replayed with the buckets as recorded")
                       .arg(mb(w.recordedCapMb), mb(w.recordedFirstBucketMb));
    }
    // The cores' share follows from the fitted cost, and a hook's excess from the share: fitted
    // once as if the cores bore all of it, then again with the share that fit gives.
    FittedCost fit = fitCost(graph, *tp, w.worldSize, *recordedHook, 1.0);
    const double share = coresShareOf(backend, t0.onDevice, options, calibration, fit.cost);
    if (share != 1.0 && !recordedHook->work.none()) {
        fit = fitCost(graph, *tp, w.worldSize, *recordedHook, share);
    }
    w.cost = fit.cost;
    w.cost.coresShare = share;
    // The backward's own compute: the recorded ready times less the hook's casts and what the
    // recorded collectives took from it.
    StepProfile profile = tp->profile;
    removeScheduleEffects(&profile.params, &profile.computeEndUs, tp->layout, *recordedHook,
                          w.cost);
    w.costMethod = fit.method;
    w.stepSpreadFraction = stepSpread(tp->stepsUs);
    w.costErrorFraction = fit.relativeError;
    w.stepMs = trace::median(tp->stepsUs).value_or(0) / 1e3;
    const BackendConcurrency& concurrency =
        collectiveConcurrency(QString::fromStdString(t0.backend));
    w.notes << QString("collectives one at a time (%1): %2")
                   .arg(QString::fromLatin1(concurrency.backend),
                        QString::fromLatin1(concurrency.why));
    w.notes << QString("the backward's compute loses %1 % of a collective's time beside it (%2; "
                       "--compute-contention)")
                   .arg(w.cost.coresShare * 100, 0, 'g', 3)
                   .arg(options.computeContention ? "as given"
                        : w.cost.coresShare > 0
                            ? QString("gloo on a CPU: its copies and sums take the cores the ranks "
                                      "fill, and the rest of a collective waits on the link; the "
                                      "cores' part is taken as %1x a lone loopback all-reduce, "
                                      "from %2")
                                  .arg(kInJobSlowdown)
                                  .arg(calibration.source)
                            : QString("the collectives run on a device, beside the host's "
                                      "compute"));

    // The recorded scenario, with the buckets as recorded.
    const Schedule replay =
        simulateLayout(profile.params, tp->layout, *recordedHook, w.cost, profile.computeEndUs);
    w.replayedExposedMs = replay.exposedUs() / 1e3;
    w.replayedComputeMs = (profile.forwardUs + replay.computeEndUs) / 1e3;
    w.replayedOptimizerMs = (profile.finalizeUs + profile.optimizerUs) / 1e3;
    w.replayedStepMs = w.replayedComputeMs + w.replayedExposedMs + w.replayedOptimizerMs;
    {
        // The whole step: beside a backward on the same cores, a dearer collective also
        // lengthens the compute.
        const auto replayedUs = [&](const CollectiveCost& c) {
            const Schedule s =
                simulateLayout(profile.params, tp->layout, *recordedHook, c, profile.computeEndUs);
            return s.computeEndUs + s.exposedUs();
        };
        const auto [lower, upper] = costBounds(w.cost, w.costErrorFraction);
        w.replayedUncertaintyMs = std::hypot(w.replayedStepMs * w.stepSpreadFraction,
                                             (replayedUs(upper) - replayedUs(lower)) / 2e3);
    }

    std::vector<double> caps = options.capsMb;
    if (caps.empty()) {
        caps = kStandardCapsMb;
        caps.push_back(w.recordedCapMb);
    }
    std::sort(caps.begin(), caps.end());
    caps.erase(std::unique(caps.begin(), caps.end()), caps.end());
    const QStringList hooks = options.hooks.isEmpty() ? QStringList{w.hook} : options.hooks;
    const int worldSize = options.worldSize.value_or(w.worldSize);
    const CollectiveCost cost = w.cost.at(worldSize, options.bandwidthX);
    QStringList hooksSaid;
    for (const QString& hookName : (QStringList{w.hook} + hooks)) {
        const std::optional<HookModel> hook = modelOf(hookName);
        if (!hook || hooksSaid.contains(hookName) || hook->sends != spec::HookWire::Half) {
            continue;
        }
        hooksSaid << hookName;
        w.notes << (hook->work.none()
                        ? QString("%1's own work (casts, and its collective in 16 bits) is not "
                                  "modelled on %2%3: no calibration covers it (tools/"
                                  "hook_calibrate.py, --hook-calibration)")
                              .arg(hookName, backend, t0.onDevice ? " on a GPU" : "")
                        : QString("%1's own work from %2: casts %3 ns per gradient byte on the "
                                  "backward's thread, its collective %4x a float32 all-reduce of "
                                  "the same bytes (the excess not shortened by a faster link), "
                                  "the copy back %5 ns per byte")
                              .arg(hookName, calibration.source)
                              .arg(hook->work.preUsPerByte * 1e3, 0, 'g', 3)
                              .arg(hook->work.collectiveFactor, 0, 'g', 3)
                              .arg(hook->work.postUsPerByte * 1e3, 0, 'g', 3));
    }
    for (const QString& hookName : hooks) {
        const std::optional<HookModel> hook = modelOf(hookName);
        if (!hook) {
            return std::nullopt;
        }
        for (const double capMb : caps) {
            Scenario s;
            s.capMb = capMb;
            s.firstBucketMb = options.firstBucketMb.value_or(
                w.firstBucketFollowsCap ? capMb : w.recordedFirstBucketMb);
            s.hook = hookName;
            s.bandwidthX = options.bandwidthX;
            s.worldSize = worldSize;
            const StepPrediction p =
                predictStep(profile, {s.firstBucketMb * kMiB, capMb * kMiB}, *hook, cost);
            s.buckets = p.buckets();
            s.stepMs = p.stepUs / 1e3;
            s.exposedMs = p.exposedUs / 1e3;
            s.computeMs = (profile.forwardUs + p.schedule.computeEndUs) / 1e3;
            s.optimizerMs = (profile.finalizeUs + profile.optimizerUs) / 1e3;
            // The fit's error goes through the schedule: a cost that much off moves the step by
            // what it exposes, not by the whole step.
            const auto [lower, upper] = costBounds(cost, w.costErrorFraction);
            const auto stepUs = [&](const CollectiveCost& c) {
                return predictStep(profile, {s.firstBucketMb * kMiB, capMb * kMiB}, *hook, c)
                    .stepUs;
            };
            s.uncertaintyMs =
                std::hypot(s.stepMs * w.stepSpreadFraction, (stepUs(upper) - stepUs(lower)) / 2e3);
            w.scenarios.push_back(s);
        }
    }
    const Scenario& best =
        *std::min_element(w.scenarios.begin(), w.scenarios.end(),
                          [](const Scenario& a, const Scenario& b) { return a.stepMs < b.stepMs; });
    const double gain = w.replayedStepMs - best.stepMs;
    auto& r = w.recommendation;
    r.keep = gain <= best.uncertaintyMs;
    r.capMb = r.keep ? w.recordedCapMb : best.capMb;
    r.hook = r.keep ? w.hook : best.hook;
    r.stepMs = r.keep ? w.replayedStepMs : best.stepMs;
    r.reason = r.keep ? QString("keep what you have: the best scenario (%1 MiB, %2) gains %3 ms "
                                "a step, inside its uncertainty of %4 ms")
                            .arg(mb(best.capMb), best.hook)
                            .arg(gain, 0, 'f', 2)
                            .arg(best.uncertaintyMs, 0, 'f', 2)
                      : QString("%1 MiB with %2 is predicted %3 ms a step faster than the replayed "
                                "recording, beyond its uncertainty of %4 ms")
                            .arg(mb(best.capMb), best.hook)
                            .arg(gain, 0, 'f', 2)
                            .arg(best.uncertaintyMs, 0, 'f', 2);
    if (t0.reducedAfterBackward || t0.reducedPerGradient) {
        // The scenarios say what DDP's reducer would do with these gradients; this job's own
        // collectives are not DDP's buckets, so no cap or hook of DDP's is advice for it.
        r.keep = true;
        r.capMb = w.recordedCapMb;
        r.hook = w.hook;
        r.stepMs = w.replayedStepMs;
        r.reason = QString("no advice on DDP's settings: this job does not reduce its gradients "
                           "through DDP's buckets (%1); the scenarios say what DDP's reducer "
                           "would do with them")
                       .arg(t0.reducedAfterBackward ? "every all_reduce starts after the backward"
                                                    : "one all_reduce per gradient");
    }
    if (worldSize != w.worldSize || options.bandwidthX != 1) {
        w.notes << QString("at world size %1 and %2x the bandwidth through the ring all-reduce "
                           "(2(N-1) latency steps, 2(N-1)/N of the bytes); compute per rank "
                           "unchanged")
                       .arg(worldSize)
                       .arg(options.bandwidthX);
    }
    return w;
}

QJsonObject toJson(const WhatIf& w) {
    QJsonArray scenarios;
    for (const Scenario& s : w.scenarios) {
        scenarios.append(QJsonObject{{"bucket_cap_mb", s.capMb},
                                     {"first_bucket_mb", s.firstBucketMb},
                                     {"hook", s.hook},
                                     {"bandwidth_x", s.bandwidthX},
                                     {"world_size", s.worldSize},
                                     {"buckets", s.buckets},
                                     {"step_ms", s.stepMs},
                                     {"uncertainty_ms", s.uncertaintyMs},
                                     {"exposed_comm_ms", s.exposedMs}});
    }
    QJsonArray bucketBytes;
    for (const double b : w.recordedBucketBytes) {
        bucketBytes.append(b);
    }
    return QJsonObject{
        {"recorded", QJsonObject{{"bucket_cap_mb", w.recordedCapMb},
                                 {"bucket_cap_from", w.recordedCapFrom},
                                 {"first_bucket_mb", w.recordedFirstBucketMb},
                                 {"first_bucket_follows_cap", w.firstBucketFollowsCap},
                                 {"hook", w.hook},
                                 {"world_size", w.worldSize},
                                 {"step_ms", w.stepMs},
                                 {"replayed_step_ms", w.replayedStepMs},
                                 {"replayed_exposed_comm_ms", w.replayedExposedMs},
                                 {"replayed_uncertainty_ms", w.replayedUncertaintyMs},
                                 {"step_spread", w.stepSpreadFraction},
                                 {"buckets", w.recordedBuckets},
                                 {"bucket_bytes", bucketBytes},
                                 {"rule_reproduces_buckets", w.ruleReproducesLayout}}},
        {"cost", QJsonObject{{"alpha_us", w.cost.alphaUs},
                             {"beta_us_per_byte", w.cost.betaUsPerByte},
                             {"method", w.costMethod},
                             {"relative_error", w.costErrorFraction},
                             {"compute_contention", w.cost.coresShare},
                             {"algorithm", "ring all-reduce"}}},
        {"scenarios", scenarios},
        {"recommendation", QJsonObject{{"bucket_cap_mb", w.recommendation.capMb},
                                       {"hook", w.recommendation.hook},
                                       {"step_ms", w.recommendation.stepMs},
                                       {"keep", w.recommendation.keep},
                                       {"reason", w.recommendation.reason}}},
        {"notes", QJsonArray::fromStringList(w.notes)}};
}

QString describe(const WhatIf& w) {
    QString out =
        QString("recorded: %1 MiB (from %2; first bucket %3 MiB%10), hook %4, world size "
                "%5, %6 buckets; median step %7 ms, replayed %8 ms (%9 %)\n")
            .arg(mb(w.recordedCapMb), w.recordedCapFrom, mb(w.recordedFirstBucketMb), w.hook)
            .arg(w.worldSize)
            .arg(w.recordedBuckets)
            .arg(w.stepMs, 0, 'f', 2)
            .arg(w.replayedStepMs, 0, 'f', 2)
            .arg(w.stepMs > 0 ? (w.replayedStepMs - w.stepMs) / w.stepMs * 100 : 0, 0, 'f', 1)
            .arg(w.firstBucketFollowsCap ? ", follows the cap" : ", kept at every cap");
    out += QString("collective cost: %1 us + %2 us/B (%3)\n")
               .arg(w.cost.alphaUs, 0, 'f', 1)
               .arg(w.cost.betaUsPerByte, 0, 'g', 3)
               .arg(w.costMethod);
    out += "  cap MiB  first MiB  hook            bw x  ranks  buckets     step ms  +- ms  "
           "exposed ms\n";
    for (const Scenario& s : w.scenarios) {
        out += QString("  %1  %2  %3  %4  %5  %6  %7  %8  %9\n")
                   .arg(mb(s.capMb), 7)
                   .arg(mb(s.firstBucketMb), 9)
                   .arg(s.hook, -14)
                   .arg(s.bandwidthX, 4, 'g', 3)
                   .arg(s.worldSize, 5)
                   .arg(s.buckets, 7)
                   .arg(s.stepMs, 10, 'f', 2)
                   .arg(s.uncertaintyMs, 5, 'f', 2)
                   .arg(s.exposedMs, 10, 'f', 2);
    }
    out += QString("recommendation: %1\n").arg(w.recommendation.reason);
    for (const QString& n : w.notes) {
        out += "note: " + n + "\n";
    }
    return out;
}

} // namespace commprof::analysis
