// SPDX-License-Identifier: GPL-3.0-or-later
#include "whatif.h"

#include "analysis/contention.h"
#include "analysis/cost_model.h"
#include "analysis/hook_work.h"
#include "analysis/number_text.h"
#include "analysis/recommendation.h"
#include "analysis/saving_rule.h"
#include "trace/statistics.h"

#include "spec/comm_hooks.h"
#include "spec/mapped.h"
#include "spec/units.h"

#include <algorithm>
#include <cmath>

namespace commprof::analysis {
namespace {

// Caps a recorded layout is looked for among when neither a flag nor --params names the cap, in
// the order they are tried: DDP's default, then from the largest down.
const std::vector<double> kCandidateCapsMb{25, 128, 100, 64, 50, 40,  32,   20,    16,    10,
                                           8,  5,   4,   2,  1,  0.5, 0.25, 0.125, 0.0625};

// The recorded buckets' wire bytes over their gradient bytes under `hook`.
double wireShareOf(const TraceProfile& tp, const HookModel& hook) {
    double gradient = 0, wire = 0;
    for (const std::vector<int>& members : tp.layout) {
        std::vector<const ReadyParam*> params;
        for (const int i : members) {
            params.push_back(&tp.steps.front().params[std::size_t(i)]);
            gradient += params.back()->bytes;
        }
        wire += hook.wire(params).bytes;
    }
    return gradient > 0 ? wire / gradient : 1.0;
}

// What the points' sizes can tell: how many distinct ones, the largest over the smallest, the
// shortest collective and the mean size (the size every latency is priced at: costCorners()).
struct PointSizes {
    int distinct = 0;
    double spread = 1, shortestUs = 0, meanBytes = 0;
    double smallestBytes = 0, largestBytes = 0;
};

struct FittedCost {
    CollectiveCost cost;
    QString method;
    double relativeError = 0; // median |measured - fitted| / measured
    // The latencies the samples allow (costCorners() keeps the mean sample's cost at each).
    double latencyLowUs = 0, latencyHighUs = 0;
    // The timed collectives' sizes; where pinned, those that pinned it (bytes on the wire).
    PointSizes sizes;
    bool pinned = false; // the trace's own sizes pinned the latency down
    QString sweepCell;   // the sweep cell whose line it is (fromSweep); empty otherwise
};

// A latency is fitted only where the sizes can tell it from the bytes: at least this many
// distinct sizes, the largest at least this many times the smallest.
constexpr int kFitSizes = 3;
constexpr double kFitSpread = 2;

using CostPoints = std::vector<std::pair<double, double>>; // bytes on the wire, us

// The points' median |measured - priced| / measured under `cost`.
double medianError(const CostPoints& points, const CollectiveCost& cost) {
    const auto errors = spec::mapped<std::vector<double>>(points, [&](const auto& p) {
        return std::fabs(p.second - cost.fittedUs(p.first)) / p.second;
    });
    return trace::median(errors).value_or(0);
}

// Each matched bucket's collective at its bytes, timed as the latest rank ran it (it waited for
// no one), with the trace's own cost samples. They are the recorded hook's collectives at their
// gradient bytes: the cost is fitted as a float32 all-reduce of the bytes on the wire, which
// every hook's model scales.
CostPoints costPoints(const DdpStepGraph& g, const TraceProfile& tp, const HookModel& recordedHook,
                      double coresShare) {
    CostPoints points = tp.costSamples;
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
    const double wireShare = wireShareOf(tp, recordedHook);
    for (auto& [x, y] : points) {
        x *= wireShare;
        y /= std::max(1.0, recordedHook.work.collectiveFactor * coresShare);
    }
    std::erase_if(points, [](const auto& p) { return p.first <= 0 || !(p.second > 0); });
    return points;
}

PointSizes sizesOf(const CostPoints& points) {
    PointSizes out;
    if (points.empty()) {
        return out;
    }
    std::vector<double> sizes;
    out.shortestUs = points.front().second;
    for (const auto& [x, y] : points) {
        sizes.push_back(x);
        out.shortestUs = std::min(out.shortestUs, y);
        out.meanBytes += x / double(points.size());
    }
    // Sizes apart by more than a thousandth: the distinct sizes a fit has to tell a latency
    // from a per-byte cost.
    std::sort(sizes.begin(), sizes.end());
    double last = -1;
    for (const double b : sizes) {
        if (last < 0 || b > last * 1.001) {
            ++out.distinct;
            last = b;
        }
    }
    out.smallestBytes = sizes.front();
    out.largestBytes = sizes.back();
    out.spread = out.largestBytes / out.smallestBytes;
    return out;
}

// What a cost the samples cannot pin down leaves open, in every such method's words.
QString openLatencies(double shortestUs) {
    return QString("every latency from 0 to the shortest collective's %1 us is in the interval")
        .arg(shortestUs, 0, 'f', 1);
}

// time = alpha + beta x bytes by the one least-squares fit of commprof (cost_model.h, relative
// weights), where the sizes allow a line and its latency is at least 0 and no longer than the
// shortest collective seen; else nullopt with *refused saying why. With kFitSizes sizes it is
// pinned (the latency's 90 % range from its standard error); through two, every latency from 0
// to the shortest collective's stays in the interval.
std::optional<FittedCost> lineFromTrace(const CostPoints& points, const PointSizes& sizes,
                                        int worldSize, QString* refused) {
    if (sizes.distinct < 2 || sizes.spread < kFitSpread) {
        *refused = QString("%1 spanning %2x: a latency needs %3 sizes over %4x")
                       .arg(countText(sizes.distinct, "distinct size"))
                       .arg(sizes.spread, 0, 'g', 3)
                       .arg(kFitSizes)
                       .arg(kFitSpread);
        return std::nullopt;
    }
    const int ranks = std::max(2, worldSize);
    const std::optional<AlphaBetaFit> fit =
        fitAlphaBeta(spec::mapped<std::vector<BucketSample>>(points, [&](const auto& p) {
            return BucketSample{ranks, p.first, p.second * 1e-6};
        }));
    if (!fit) {
        *refused = "the sizes do not determine a latency and a per-byte cost";
        return std::nullopt;
    }
    const CollectiveCost c = fit->cost(ranks);
    const double alphaUs = c.alphaUs * 1e6, betaUs = c.betaUsPerByte * 1e6;
    const double seUs = fit->alphaStandardError * RingAllReduce::latencySteps(ranks) * 1e6;
    if (!(betaUs > 0) || alphaUs < 0) {
        *refused = "the fit's latency or per-byte cost is below zero";
        return std::nullopt;
    }
    if (alphaUs > sizes.shortestUs) {
        *refused = QString("the fit's latency, %1 us, is longer than the shortest collective "
                           "seen (%2 us)")
                       .arg(alphaUs, 0, 'f', 1)
                       .arg(sizes.shortestUs, 0, 'f', 1);
        return std::nullopt;
    }
    FittedCost out;
    out.pinned = sizes.distinct >= kFitSizes;
    out.cost.alphaUs = alphaUs;
    out.cost.betaUsPerByte = betaUs;
    out.latencyLowUs = out.pinned ? std::max(0.0, alphaUs - kZ90 * seUs) : 0.0;
    out.latencyHighUs =
        out.pinned ? std::min(sizes.shortestUs, alphaUs + kZ90 * seUs) : sizes.shortestUs;
    out.method = out.pinned ? QString("alpha + beta x bytes over %1 timed collectives of %2 "
                                      "sizes (latency %3..%4 us at 90 %)")
                                  .arg(points.size())
                                  .arg(sizes.distinct)
                                  .arg(out.latencyLowUs, 0, 'f', 1)
                                  .arg(out.latencyHighUs, 0, 'f', 1)
                            : QString("alpha + beta x bytes through the 2 sizes of %1 timed "
                                      "collectives (%2 us + %3 us/B; 2 sizes cannot pin the "
                                      "latency down: %4)")
                                  .arg(points.size())
                                  .arg(alphaUs, 0, 'f', 1)
                                  .arg(betaUs, 0, 'g', 3)
                                  .arg(openLatencies(sizes.shortestUs));
    return out;
}

// Their time over their bytes: the cost that keeps the recorded collectives' total, where a
// median of per-collective ratios lets a small, latency-bound collective price every byte of
// the large ones.
FittedCost inProportion(const CostPoints& points, const PointSizes& sizes, const QString& refused) {
    double us = 0, bytes = 0;
    for (const auto& [x, y] : points) {
        us += y;
        bytes += x;
    }
    FittedCost out;
    out.cost.betaUsPerByte = bytes > 0 ? us / bytes : 0;
    out.latencyHighUs = sizes.shortestUs;
    out.method = QString("in proportion to the bytes, over %1 timed collectives (%2; %3)")
                     .arg(points.size())
                     .arg(refused, openLatencies(sizes.shortestUs));
    return out;
}

// The sweep's all_reduce line (whatif_sweep.h), where the trace's collectives cannot pin the
// cost down: the sweep's latency and per-byte cost in its own proportion, times the trace's
// timed collectives' total over what the line prices them at (they ran inside the job, beside
// its backward: the level is theirs, the shape the sweep's). The latency is the sweep's, so no
// other is left open; the interval widens by the sweep's own residual spread.
FittedCost fromSweep(const CostPoints& points, const SweepOffer& sweep, const QString& refused) {
    double traceUs = 0, sweepUs = 0;
    for (const auto& [x, y] : points) {
        traceUs += y;
        sweepUs += sweep.fit.predictUs(x);
    }
    const double scale = traceUs > 0 && sweepUs > 0 ? traceUs / sweepUs : 1.0;
    FittedCost out;
    out.cost.alphaUs = scale * sweep.fit.alphaUs;
    out.cost.betaUsPerByte = scale * sweep.fit.betaUsPerByte;
    out.latencyLowUs = out.latencyHighUs = out.cost.alphaUs;
    out.sweepCell = sweep.cellDir;
    out.method =
        QString("the all_reduce line of the sweep cell %1 (%2 us + %3 us/B over %4 sizes, R^2 "
                "%5, %6 % off its own points), times %7 to the trace's %8 timed collectives, "
                "which cannot pin the cost down (%9)")
            .arg(sweep.cellId)
            .arg(sweep.fit.alphaUs, 0, 'f', 1)
            .arg(sweep.fit.betaUsPerByte, 0, 'g', 3)
            .arg(sweep.fit.sizes)
            .arg(sweep.fit.r2, 0, 'f', 3)
            .arg(sweep.residualSpread * 100, 0, 'f', 1)
            .arg(scale, 0, 'g', 3)
            .arg(points.size())
            .arg(points.empty() ? QString("the trace times none") : refused);
    out.relativeError = std::hypot(medianError(points, out.cost), sweep.residualSpread);
    return out;
}

// The collectives' cost as the trace shows it: its own line where its sizes pin the latency
// down (lineFromTrace); else a sweep over the same link where one is given (fromSweep); else
// the line through two sizes, or time in proportion to the bytes, with every latency from none
// to the shortest collective's time left open (the scenarios' intervals span them).
FittedCost fitCost(const DdpStepGraph& g, const TraceProfile& tp, int worldSize,
                   const HookModel& recordedHook, double coresShare, const SweepOffer* sweep) {
    const CostPoints points = costPoints(g, tp, recordedHook, coresShare);
    const PointSizes sizes = sizesOf(points);
    QString refused;
    const std::optional<FittedCost> line =
        points.empty() ? std::nullopt : lineFromTrace(points, sizes, worldSize, &refused);
    FittedCost out;
    if (points.empty() && !sweep) {
        out.method = "no timed collective in the traces: communication costs nothing";
    } else if (sweep && !(line && line->pinned)) {
        out = fromSweep(points, *sweep,
                        line ? QString("2 sizes cannot pin the latency down") : refused);
    } else {
        out = line ? *line : inProportion(points, sizes, refused);
        out.relativeError = medianError(points, out.cost);
    }
    out.cost.worldSize = worldSize;
    out.sizes = sizes;
    return out;
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

// Half the interquartile range of a normal distribution, in its standard deviations.
constexpr double kHalfIqrSigmas = 0.6745;

// Every cost the trace's collectives allow, the replay's fitted cost the central one (all at
// the recorded world size and link): each latency the fit leaves open (with the per-byte cost
// that keeps the recorded buckets' mean size at its fitted cost: what the samples cannot tell
// from the fit), at each end of the contention's interval, each the fit's error cheaper and
// dearer. With `open`, the latencies are every one from none to the shortest collective's time.
std::vector<CollectiveCost> costCorners(const Replay& r, bool open) {
    const WhatIf& w = r.recorded;
    const double meanBytes = w.latencyReferenceBytes;
    const double error = w.costErrorFraction;
    std::vector<CollectiveCost> out;
    for (const double alpha :
         {open ? 0.0 : w.latencyLowUs, open ? r.shortestCollectiveUs : w.latencyHighUs}) {
        for (const double contention : {w.contentionLow, w.contentionHigh}) {
            for (const double cores : {w.coresShareLow, w.coresShareHigh}) {
                CollectiveCost c = w.cost;
                if (meanBytes > 0) {
                    c.alphaUs = alpha;
                    c.betaUsPerByte =
                        std::max(0.0, (w.cost.fittedUs(meanBytes) - alpha) / meanBytes);
                }
                c.contention = contention;
                c.coresShare = cores;
                for (const double scale : {std::max(0.0, 1.0 - error), 1.0 + error}) {
                    out.push_back(c);
                    out.back().scale = c.scale * scale;
                }
            }
        }
    }
    return out;
}

// `cornersMs`, where given, gets the step at each of costCorners() in their order.
Scenario predictScenario(const Replay& r, double capMb, double firstBucketMb, const HookModel& hook,
                         double bandwidthX, int worldSize, std::vector<double>* cornersMs = nullptr,
                         bool openLatency = false) {
    const WhatIf& w = r.recorded;
    Scenario s{.capMb = capMb,
               .firstBucketMb = firstBucketMb,
               .hook = hook.hook,
               .bandwidthX = bandwidthX,
               .worldSize = worldSize};
    // The recorded settings are the replay: the recorded buckets, not the rule's.
    s.recordedLayout =
        capMb == w.recordedCapMb && firstBucketMb == w.recordedFirstBucketMb && hook.hook == w.hook;
    // One step's backward (from the forward's start), exposed communication and the rest
    // (finalize and optimizer), in us.
    struct Parts {
        double computeUs = 0, exposedUs = 0, restUs = 0;
        std::vector<ScheduledBucket> buckets;
        double stepUs() const { return computeUs + exposedUs + restUs; }
    };
    const auto schedule = [&](const StepProfile& p, const CollectiveCost& atRecorded, double cap,
                              double first, const HookModel& h, bool recordedLayout) {
        const CollectiveCost c = atRecorded.at(worldSize, bandwidthX);
        Schedule sc = recordedLayout
                          ? simulateLayout(p.params, r.layout, h, c, p.computeEndUs)
                          : predictStep(p, {first * spec::kMiB, cap * spec::kMiB}, h, c).schedule;
        return Parts{p.forwardUs + sc.computeEndUs, sc.exposedUs(), p.finalizeUs + p.optimizerUs,
                     std::move(sc.buckets)};
    };
    // Where DDP's rule at the recorded settings does not make the recorded buckets, the rule's
    // scenario is moved by the gap between the recorded buckets and the rule's at the recorded
    // settings (at the same cost): each scenario then differs from the replay by what the rule
    // says the setting changes, not by the rule's miss on the recording as well.
    const bool moved = !s.recordedLayout && !w.ruleReproducesLayout;
    // Each traced step at cost `c`, and their median by step length (with an even count, the
    // mean of the middle two), as the recorded median step is taken.
    const auto at = [&](const CollectiveCost& c) {
        std::vector<Parts> steps;
        for (const StepProfile& p : r.steps) {
            Parts out = schedule(p, c, capMb, firstBucketMb, hook, s.recordedLayout);
            if (moved) {
                const double cap = w.recordedCapMb, first = w.recordedFirstBucketMb;
                const Parts recorded = schedule(p, c, cap, first, r.recordedHook, true);
                const Parts rule = schedule(p, c, cap, first, r.recordedHook, false);
                out.computeUs += recorded.computeUs - rule.computeUs;
                out.exposedUs += recorded.exposedUs - rule.exposedUs;
            }
            steps.push_back(std::move(out));
        }
        std::ranges::sort(steps, {}, &Parts::stepUs);
        Parts m = std::move(steps[steps.size() / 2]);
        if (steps.size() % 2 == 0) {
            const Parts& lower = steps[steps.size() / 2 - 1];
            m.computeUs = (m.computeUs + lower.computeUs) / 2;
            m.exposedUs = (m.exposedUs + lower.exposedUs) / 2;
            m.restUs = (m.restUs + lower.restUs) / 2;
        }
        return m;
    };
    Parts central = at(w.cost);
    // The replay's finalize and optimizer, not the median step's own (which would move them from
    // setting to setting with the steps' noise); the backward's compute takes the rest.
    if (central.computeUs + central.restUs >= r.restUs) {
        central.computeUs += central.restUs - r.restUs;
        central.restUs = r.restUs;
    }
    s.buckets = int(central.buckets.size());
    // A latency pinned down between the sizes the trace timed says nothing of buckets beyond
    // them (the fit extrapolated): there every latency the trace allows is in the interval.
    s.latencyOpen =
        openLatency ||
        (!s.recordedLayout && r.pinnedToBytes > 0 &&
         std::any_of(central.buckets.begin(), central.buckets.end(), [&](const ScheduledBucket& b) {
             return b.wireBytes < r.pinnedFromBytes / 1.001 ||
                    b.wireBytes > r.pinnedToBytes * 1.001;
         }));
    s.stepMs = central.stepUs() / 1e3;
    s.exposedMs = central.exposedUs / 1e3;
    s.computeMs = central.computeUs / 1e3;
    s.optimizerMs = central.restUs / 1e3;
    // The fit's error and the latencies it leaves open go through the schedule: a cost that much
    // off moves the step by what it exposes (and takes from the backward), not by the whole
    // step; the farthest of them bounds the interval.
    double fromCost = 0;
    for (const CollectiveCost& c : costCorners(r, s.latencyOpen)) {
        const double ms = at(c).stepUs() / 1e3;
        fromCost = std::max(fromCost, std::fabs(ms - s.stepMs));
        if (cornersMs) {
            cornersMs->push_back(ms);
        }
    }
    s.modelStepMs = s.stepMs;
    const double fromSteps = kZ90 * w.stepSpreadFraction / kHalfIqrSigmas * s.stepMs;
    const double fromReplay = w.replayErrorFraction * s.stepMs;
    s.uncertaintyMs =
        std::sqrt(fromSteps * fromSteps + fromCost * fromCost + fromReplay * fromReplay);
    return s;
}

// The scenario predicted as the baseline's step and parts, its interval widened by `openMs`,
// what the evidence leaves open between them.
void predictNoChange(Scenario* s, const Scenario& base, double openMs) {
    s->noChange = true;
    s->stepMs = base.stepMs;
    s->computeMs = base.computeMs;
    s->exposedMs = base.exposedMs;
    s->optimizerMs = base.optimizerMs;
    s->uncertaintyMs = std::hypot(base.uncertaintyMs, openMs);
}

// Where the trace cannot tell a scenario from the recorded settings (over the costs it allows,
// one is faster at some and slower at others), the prediction is "no change": the baseline's
// step, its interval widened by the most the costs it cannot tell apart move the difference.
void weighEvidence(Scenario* s, const std::vector<double>& cornersMs, const Scenario& base,
                   const std::vector<double>& baseCornersMs) {
    if (s->recordedLayout || cornersMs.size() != baseCornersMs.size()) {
        return;
    }
    double least = s->stepMs - base.stepMs, most = least, farthest = std::fabs(least);
    for (std::size_t i = 0; i < cornersMs.size(); ++i) {
        const double d = cornersMs[i] - baseCornersMs[i];
        least = std::min(least, d);
        most = std::max(most, d);
        farthest = std::max(farthest, std::fabs(d));
    }
    if (least <= 0 && most >= 0 && farthest != 0) {
        predictNoChange(s, base, farthest);
    }
}

// Whether `hook`'s own work is known: none for a hook that sends the gradients as they are (or
// nothing), else only from a calibration of this machine on this backend.
bool hookWorkKnown(const HookModel& hook, const HookCalibration* calibration,
                   const QString& backend, bool onDevice) {
    return hook.sends == spec::HookWire::Gradient || hook.sends == spec::HookWire::Nothing ||
           (calibration && calibration->backend == backend && calibration->onDevice == onDevice &&
            calibration->hooks.count(hook.hook) > 0);
}

// The backward's loss beside a collective: as given; none where the collectives run on a
// device; else the trace's own estimate where its interval is narrow enough to say something,
// a calibration of this machine where there is one, and the trace's (wide) interval otherwise.
struct Contention {
    double share = 0, low = 0, high = 0;
    QString from, detail;
};

// An estimate whose interval is wider than this says little; a calibration is preferred then.
constexpr double kInformativeWidth = 0.5;

Contention contentionOf(const DdpStepGraph& graph, const WhatIf& w, const WhatIfOptions& options,
                        const HookCalibration* calibration) {
    if (options.computeContention) {
        const double v = *options.computeContention;
        return {v, v, v, "given", "as given"};
    }
    if (w.backend != "gloo" || w.onDevice) {
        return {0, 0, 0, "backend", "the collectives run on a device, beside the host's compute"};
    }
    const ContentionEstimate e = contentionFromTraces(graph.traces);
    if (e.determined && e.high - e.low <= kInformativeWidth) {
        return {e.share, e.low, e.high, "trace", e.detail};
    }
    if (calibration && calibration->contention) {
        const double v = *calibration->contention;
        return {
            v, v, v, "calibration",
            QString("from %1, measured on this machine (%2)").arg(calibration->source, e.detail)};
    }
    return {e.share, e.low, e.high, "unknown",
            e.detail + "; no calibration of this machine measures it (`commprof calibrate hooks`): "
                       "every share in the interval is carried"};
}

QString settingText(const Scenario& s) {
    return QString("%1 MiB with %2").arg(mb(s.capMb), s.hook);
}

// Why DDP's rule at the recorded cap makes other buckets than the job recorded.
QString whyRuleDiffers(const TraceProfile& tp, const std::vector<std::vector<int>>& rule) {
    const QString counts = QString("the rule makes %1 buckets, the job recorded %2")
                               .arg(rule.size())
                               .arg(tp.layout.size());
    if (!tp.bytesFromParams) {
        return counts + ": the gradients' sizes are estimated from the collectives (each "
                        "bucket's bytes shared evenly among its gradients), which cannot show "
                        "where the rule closed a bucket";
    }
    return counts + ": DDP fills its buckets in the order of the parameters (reversed) until "
                    "it rebuilds them in the order of the first backward's gradients, and "
                    "keeps the first bucket's limit it was built with; the recorded backward's "
                    "order or the first bucket's limit differs from the rule's";
}

// A hook's model with its own work, where a calibration of this machine covers it on this
// backend; else none, and hookWorkKnown() says whether that is the truth.
std::optional<HookModel> modelOn(const HookCalibration* calibration, const WhatIf& w,
                                 const QString& name, QString* why) {
    std::optional<HookModel> m = hookModel(name, 1, why);
    if (m && calibration) {
        m->work = hookWork(*calibration, name, w.backend, w.onDevice);
    }
    return m;
}

// The recorded settings at `bandwidthX` and `worldSize`, what a scenario there is weighed
// against (the replay itself at 1x and the recorded world size); `cornersMs` gets its step at
// each cost the trace allows.
Scenario baselineAt(const Replay& r, double bandwidthX, int worldSize,
                    std::vector<double>* cornersMs = nullptr, bool openLatency = false) {
    const WhatIf& w = r.recorded;
    return predictScenario(r, w.recordedCapMb, w.recordedFirstBucketMb, r.recordedHook, bandwidthX,
                           worldSize, cornersMs, openLatency);
}

// One job's replay in the making: its inputs and this machine's calibration.
struct Making {
    const DdpStepGraph& graph;
    const DdpParams* params;
    const WhatIfOptions& options;
    const TraceProfile& tp;
    const HookCalibration* calibration;
    WhatIf& w;
    QString* why;

    const std::optional<CellSettings>& cell = options.cell;
    const trace::DdpRankSteps& t0 = *graph.traces.front();
    void recordedJob() const;
    bool recordedCap() const;
    void replayJob(const SweepOffer* sweep, Replay* replay) const;
};

// The recorded world size, hook, backend and device: as given, else as the cell or --params
// says, else as the trace shows them.
void Making::recordedJob() const {
    if (t0.worldSize) {
        w.worldSize = *t0.worldSize;
    } else if (cell && cell->worldSize > 0) {
        w.worldSize = cell->worldSize;
    } else if (params && params->worldSize) {
        w.worldSize = *params->worldSize;
    } else {
        w.worldSize = std::max<int>(2, int(graph.traces.size()));
        w.notes << QString("the traces do not say the world size: taken as %1 (give --params with "
                           "world_size)")
                       .arg(w.worldSize);
    }
    w.hook = cell ? cell->hook : params && params->hook ? *params->hook : QString("allreduce");
    w.backend =
        cell && !cell->backend.isEmpty() ? cell->backend : QString::fromStdString(t0.backend);
    w.onDevice = cell && !cell->backend.isEmpty() ? cell->onDevice : t0.onDevice;
}

// The recorded cap and first bucket, and whether DDP's rule reproduces the recorded buckets;
// false with *why when no cap can be told.
bool Making::recordedCap() const {
    w.recordedBuckets = int(tp.layout.size());
    w.recordedBucketBytes = tp.bucketBytes;
    const std::vector<double> bytes = bytesOf(tp.steps.front().params);
    const auto reproduces = [&](double firstMb, double capMb) {
        return assignBuckets(bytes, {firstMb * spec::kMiB, capMb * spec::kMiB}) == tp.layout;
    };
    // 0 stands for "the cap". The legacy export is PyTorch 1.13's, whose DDP keeps a 1 MiB
    // first bucket at every cap; a Kineto trace does not name its version, so both are tried.
    const std::vector<double> firstChoices =
        options.firstBucketMb             ? std::vector<double>{*options.firstBucketMb}
        : cell                            ? std::vector<double>{cell->firstBucketMb}
        : params && params->firstBucketMb ? std::vector<double>{*params->firstBucketMb}
        : t0.legacy                       ? std::vector<double>{1.0}
                                          : std::vector<double>{1.0, 0.0};
    std::optional<double> cap = options.recordedCapMb;
    w.recordedCapFrom = "--recorded-bucket-cap-mb";
    if (!cap && cell) {
        cap = cell->bucketCapMb;
        w.recordedCapFrom = cell->path;
    }
    if (!cap && params && params->bucketCapMb) {
        cap = params->bucketCapMb;
        w.recordedCapFrom = params->source.isEmpty() ? QString("--params") : params->source;
    }
    // The first of the first choices that makes the recorded buckets at cap `c`, if any.
    const auto reproducingFirst = [&](double c) -> std::optional<double> {
        for (const double f : firstChoices) {
            if (reproduces(f > 0 ? f : c, c)) {
                return f > 0 ? f : c;
            }
        }
        return std::nullopt;
    };
    if (!cap) {
        // DDP's default 25 MiB where it fits, else the largest candidate that does: every cap
        // between a bucket's bytes without its last gradient and its bytes makes the same
        // buckets, and jobs set round caps.
        const auto found = std::ranges::find_if(
            kCandidateCapsMb, [&](double c) { return reproducingFirst(c).has_value(); });
        if (found != kCandidateCapsMb.end()) {
            cap = *found;
        }
        w.recordedCapFrom = "the recorded buckets";
    }
    // A job that does not reduce through DDP's buckets, or gradient sizes shared evenly within a
    // bucket (which cannot show where the rule closed it): the recorded buckets are replayed as
    // recorded, and the cap is DDP's default, said so.
    const bool notDdps = t0.reducedAfterBackward || t0.reducedPerGradient;
    if (!cap && (notDdps || !tp.bytesFromParams)) {
        cap = 25;
        w.recordedCapFrom =
            notDdps ? "none: the job does not reduce through DDP's buckets (DDP's default for its "
                      "scenarios)"
                    : "DDP's default (assumed: no cap reproduces the recorded buckets from sizes "
                      "estimated from the collectives; give --recorded-bucket-cap-mb)";
    }
    if (!cap) {
        *why = "no bucket cap reproduces the recorded buckets from these gradient sizes: give "
               "the cap the job ran with (--recorded-bucket-cap-mb X, or bucket_cap_mb in "
               "--params)";
        return false;
    }
    w.recordedCapMb = *cap;
    w.recordedFirstBucketMb =
        reproducingFirst(*cap).value_or(firstChoices.front() > 0 ? firstChoices.front() : *cap);
    // Whether another cap moves the first bucket with it: PyTorch 2.x's DDP makes the first
    // bucket the cap when the job gave one, 1.13's keeps 1 MiB (DDP's
    // _DEFAULT_FIRST_BUCKET_BYTES) at every cap. A first bucket equal to the cap follows it,
    // except on the legacy export (1.13 only) and where --params names a first bucket other than
    // its cap.
    w.firstBucketFollowsCap =
        !cell && !t0.legacy &&
        (params && params->firstBucketMb
             ? params->bucketCapMb && *params->firstBucketMb == *params->bucketCapMb
             : w.recordedFirstBucketMb == w.recordedCapMb);
    w.ruleReproducesLayout = reproduces(w.recordedFirstBucketMb, w.recordedCapMb);
    if (!w.ruleReproducesLayout) {
        w.ruleDiffers =
            whyRuleDiffers(tp, assignBuckets(bytes, {w.recordedFirstBucketMb * spec::kMiB,
                                                     w.recordedCapMb * spec::kMiB}));
        w.notes << QString("DDP's bucket rule at %1 MiB (first bucket %2 MiB) does not reproduce "
                           "the recorded buckets (%3): the recorded settings are replayed with the "
                           "buckets as recorded")
                       .arg(mb(w.recordedCapMb), mb(w.recordedFirstBucketMb), w.ruleDiffers);
    }
    return true;
}

// The job replayed once, every scenario predicted from it: the collectives' cost, the
// backward's loss beside them, the backward's own compute; and the replay of the recording.
void Making::replayJob(const SweepOffer* sweep, Replay* replay) const {
    // The backward's loss beside a collective, as the trace (or a calibration) shows it; the
    // recorded hook's excess over a float32 all-reduce follows from it.
    const Contention contention = contentionOf(graph, w, options, calibration);
    w.contentionLow = contention.low;
    w.contentionHigh = contention.high;
    w.contentionFrom = contention.from;
    // The cores' share of a collective (what a hook's dearer sums multiply): a float32
    // all-reduce alone on this machine's loopback against the job's own per-byte cost, up to
    // all of it (the job's cores were busier than the calibration's); from a calibration only,
    // and needed only for a hook whose work it measured.
    Replay& r = *replay;
    const HookModel& recordedHook = r.recordedHook;
    r.layout = tp.layout;
    FittedCost fit = fitCost(graph, tp, w.worldSize, recordedHook, 1.0, sweep);
    if (w.backend != "gloo" || w.onDevice) {
        w.coresShareLow = w.coresShareHigh = 0;
    } else if (calibration && fit.cost.betaUsPerByte > 0) {
        w.coresShareLow = std::min(1.0, calibration->float32UsPerByte / fit.cost.betaUsPerByte);
        w.coresShareHigh = 1;
    }
    // Central: the cores' part as the calibration measured it; the rest of the range (a job's
    // busier cores) is in every interval.
    const double share = w.coresShareLow;
    if (!recordedHook.work.none()) {
        fit = fitCost(graph, tp, w.worldSize, recordedHook, share, sweep);
    }
    w.cost = fit.cost;
    w.cost.coresShare = share;
    w.cost.contention = contention.share;
    w.latencyLowUs = fit.latencyLowUs;
    w.latencyHighUs = fit.latencyHighUs;
    w.latencyReferenceBytes = fit.sizes.meanBytes;
    if (fit.pinned) {
        r.pinnedFromBytes = fit.sizes.smallestBytes;
        r.pinnedToBytes = fit.sizes.largestBytes;
        r.shortestCollectiveUs = fit.sizes.shortestUs;
    }
    // The backward's own compute: the recorded ready times less the hook's casts and what the
    // recorded collectives took from it.
    r.steps = tp.steps;
    std::vector<double> rests;
    for (StepProfile& p : r.steps) {
        removeScheduleEffects(&p.params, &p.computeEndUs, tp.layout, recordedHook, w.cost);
        rests.push_back(p.finalizeUs + p.optimizerUs);
    }
    r.restUs = trace::median(rests).value_or(0);
    w.costMethod = fit.method;
    w.costFrom = fit.sweepCell.isEmpty() ? QString("trace") : QString("sweep");
    w.costSweep = fit.sweepCell;
    if (sweep && fit.sweepCell.isEmpty()) {
        w.notes << QString("the trace's own collectives pin their cost down: the sweep cell %1 "
                           "(--sweep) is not needed")
                       .arg(sweep->cellDir);
    }
    w.stepSpreadFraction = stepSpread(tp.stepsUs);
    w.costErrorFraction = fit.relativeError;
    w.stepMs = trace::median(tp.stepsUs).value_or(0) / 1e3;
    const BackendConcurrency& concurrency = collectiveConcurrency(w.backend);
    w.notes << QString("collectives one at a time (%1): %2")
                   .arg(QString::fromLatin1(concurrency.backend),
                        QString::fromLatin1(concurrency.why));
    w.notes << QString("the backward's compute loses %1 % of a collective's time beside it "
                       "(90 % interval %2..%3 %; --compute-contention): %4")
                   .arg(w.cost.contention * 100, 0, 'g', 3)
                   .arg(w.contentionLow * 100, 0, 'g', 3)
                   .arg(w.contentionHigh * 100, 0, 'g', 3)
                   .arg(contention.detail);

    // The replay: the recorded settings at the recorded link and world size, its error on the
    // recording part of every interval (its own included).
    w.replayed = baselineAt(r, 1, w.worldSize);
    w.replayErrorFraction = w.stepMs > 0 ? std::fabs(w.replayed.stepMs - w.stepMs) / w.stepMs : 0;
    w.replayed = baselineAt(r, 1, w.worldSize);
}

// Where each 16-bit or low-rank hook's own work comes from, in the notes.
void hookNotes(const Replay& r, const QStringList& hooks, WhatIf& w) {
    const HookCalibration* calibration = r.calibration ? &*r.calibration : nullptr;
    QStringList hooksSaid;
    for (const QString& hookName : (QStringList{w.hook} + hooks)) {
        QString unknownHook;
        const std::optional<HookModel> hook = modelOn(calibration, w, hookName, &unknownHook);
        if (!hook || hooksSaid.contains(hookName) || hook->sends == spec::HookWire::Gradient ||
            hook->sends == spec::HookWire::Nothing) {
            continue;
        }
        hooksSaid << hookName;
        const bool known = hookWorkKnown(*hook, calibration, w.backend, w.onDevice);
        w.hookWorkFrom[hookName] = known                ? calibration->source
                                   : hookName == w.hook ? QString("recording")
                                                        : QString("unknown");
        if (known) {
            w.notes << QString("%1's own work from %2: casts %3 ns per gradient byte on the "
                               "backward's thread, its collective %4x a float32 all-reduce of "
                               "the same bytes (the excess not shortened by a faster link), "
                               "the copy back %5 ns per byte")
                           .arg(hookName, calibration->source)
                           .arg(hook->work.preUsPerByte * 1e3, 0, 'g', 3)
                           .arg(hook->work.collectiveFactor, 0, 'g', 3)
                           .arg(hook->work.postUsPerByte * 1e3, 0, 'g', 3);
        } else if (hookName == w.hook) {
            w.notes << QString("%1's own work is in the recording (its casts in the backward's "
                               "compute, its collective in the fitted cost): its other caps carry "
                               "it as recorded")
                           .arg(hookName);
        } else {
            w.notes << QString("%1's own work on %2%3 is unknown here (no calibration of this "
                               "machine covers it: `commprof calibrate hooks` measures it in "
                               "seconds, or give --hook-calibration FILE): %1 and the recorded "
                               "%4 are predicted as no change, the step they would take with no "
                               "work of their own inside the interval")
                           .arg(hookName, w.backend, w.onDevice ? " on a GPU" : "", w.hook);
        }
    }
}

// The recorded settings at the scenarios' bandwidth and world size (baselineAt()), its step at
// each cost the trace allows, and at each with every latency open (predicted once, the first
// time a scenario needs them).
struct Baseline {
    Scenario scenario;
    std::vector<double> corners;
    std::optional<std::vector<double>> openCorners;
};

// One scenario weighed against `base` (at its bandwidth and world size): the model's step, or
// "no change" where the trace cannot tell them apart or a hook's own work is unknown here.
std::optional<Scenario> predictAgainst(const Replay& r, const ScenarioSettings& settings,
                                       Baseline& base, QString* why) {
    const WhatIf& w = r.recorded;
    const HookCalibration* calibration = r.calibration ? &*r.calibration : nullptr;
    const std::optional<HookModel> hook = modelOn(calibration, w, settings.hook, why);
    if (!hook) {
        return std::nullopt;
    }
    const double first = settings.firstBucketMb.value_or(
        w.firstBucketFollowsCap ? settings.capMb : w.recordedFirstBucketMb);
    std::vector<double> corners;
    Scenario s = predictScenario(r, settings.capMb, first, *hook, settings.bandwidthX,
                                 settings.worldSize.value_or(w.worldSize), &corners);
    const auto workKnown = [&](const HookModel& h) {
        return hookWorkKnown(h, calibration, w.backend, w.onDevice);
    };
    if (settings.hook != w.hook && !(workKnown(*hook) && workKnown(r.recordedHook))) {
        // A hook's work between two settings the machine has no measure of: "no change", the
        // step with no work of the hooks' own (the least the model can say of them) inside the
        // interval.
        s.hookWorkUnknown = true;
        predictNoChange(&s, base.scenario, std::fabs(s.stepMs - base.scenario.stepMs));
    } else if (s.latencyOpen) {
        // Weighed over the same open latencies at the recorded settings.
        if (!base.openCorners) {
            baselineAt(r, settings.bandwidthX, settings.worldSize.value_or(w.worldSize),
                       &base.openCorners.emplace(), true);
        }
        weighEvidence(&s, corners, base.scenario, *base.openCorners);
    } else {
        weighEvidence(&s, corners, base.scenario, base.corners);
    }
    return s;
}

// Keep what the job has unless the best advisable scenario is faster than the recorded
// settings at the same bandwidth and world size (`base`) by more than its interval
// (saving_rule.h: the rule `recommend` advises a cap by); no advice on DDP's settings for a job
// whose collectives are not DDP's buckets.
WhatIfRecommendation decideOver(const Replay& rp, const std::vector<Scenario>& scenarios,
                                const Scenario& base) {
    const WhatIf& w = rp.recorded;
    WhatIfRecommendation r;
    r.capMb = w.recordedCapMb;
    r.hook = w.hook;
    r.stepMs = base.stepMs;
    r.baseline = base;
    const Scenario* best = nullptr;
    for (const Scenario& s : scenarios) {
        // `local` sends nothing (the no-communication baseline, not a way to train), so it is
        // shown, never advised.
        if (!spec::sendsNothing(s.hook.toStdString()) && (!best || s.stepMs < best->stepMs)) {
            best = &s;
        }
    }
    const QString where = QString("at %1x the bandwidth and %2 ranks")
                              .arg(base.bandwidthX, 0, 'g', 4)
                              .arg(base.worldSize);
    if (best) {
        r.gainMs = base.stepMs - best->stepMs;
        r.uncertaintyMs = best->uncertaintyMs;
    }
    const Saving saving = best ? judgeSaving(r.gainMs, r.uncertaintyMs) : Saving::None;
    if (!best) {
        r.reason = "keep what you have: no scenario but `local`, which sends nothing (the "
                   "no-communication baseline, not a setting to train with)";
    } else if (best->recordedLayout || saving == Saving::None) {
        r.reason = QString("keep what you have: no scenario is predicted faster than the recorded "
                           "settings (%1, %2 ms a step %3)")
                       .arg(settingText(base))
                       .arg(base.stepMs, 0, 'f', 2)
                       .arg(where);
        r.gainMs = std::max(0.0, r.gainMs);
    } else if (saving == Saving::InsideUncertainty) {
        r.reason = QString("keep what you have: the best scenario (%1) is predicted %2 ms a step "
                           "faster than the recorded settings %3, inside its 90 % interval of "
                           "+-%4 ms")
                       .arg(settingText(*best))
                       .arg(r.gainMs, 0, 'f', 2)
                       .arg(where)
                       .arg(r.uncertaintyMs, 0, 'f', 2);
    } else if (rp.noAdviceWhy.isEmpty()) {
        r.keep = false;
        r.capMb = best->capMb;
        r.hook = best->hook;
        r.stepMs = best->stepMs;
        r.reason =
            QString("%1 is predicted %2 ms a step faster than the recorded settings (%3 ms) %4, "
                    "beyond its 90 % interval of +-%5 ms")
                .arg(settingText(*best))
                .arg(r.gainMs, 0, 'f', 2)
                .arg(base.stepMs, 0, 'f', 2)
                .arg(where)
                .arg(r.uncertaintyMs, 0, 'f', 2);
    }
    if (!rp.noAdviceWhy.isEmpty()) {
        // The scenarios say what DDP's reducer would do with these gradients; this job's own
        // collectives are not DDP's buckets, so no cap or hook of DDP's is advice for it.
        r.reason = QString("no advice on DDP's settings: this job does not reduce its gradients "
                           "through DDP's buckets (%1); the scenarios say what DDP's reducer "
                           "would do with them")
                       .arg(rp.noAdviceWhy);
    }
    return r;
}

} // namespace

std::optional<Replay> replay(const DdpStepGraph& graph, const DdpParams* params,
                             const WhatIfOptions& options, QString* why) {
    if (options.cell && !localBaselineWhy(*options.cell).isEmpty()) {
        *why = localBaselineWhy(*options.cell);
        return std::nullopt;
    }
    const std::optional<TraceProfile> tp = profileFromTraces(graph.traces, params, why);
    if (!tp) {
        return std::nullopt;
    }
    Replay r;
    r.calibration = options.hookCalibration;
    WhatIf& w = r.recorded;
    w.notes << graph.notes;
    if (options.cell) {
        w.settingsFrom = options.cell->path;
        w.notes << QString("the recorded cap, first bucket, hook, backend and device are %1's "
                           "(layer %2)")
                       .arg(options.cell->path, options.cell->layer.isEmpty()
                                                    ? QString("not said")
                                                    : options.cell->layer);
    }
    const Making m{graph, params, options, *tp, r.calibration ? &*r.calibration : nullptr, w, why};
    m.recordedJob();
    const std::optional<HookModel> recordedHook = modelOn(m.calibration, w, w.hook, why);
    if (!recordedHook || !m.recordedCap()) {
        return std::nullopt;
    }
    r.recordedHook = *recordedHook;
    const SweepOffer* sweep = nullptr;
    if (!options.sweepRun.isEmpty()) {
        // A sweep is matched to the job as recorded: its world size, backend, device and link.
        sweep = matchingSweep(options.sweeps, w.worldSize, w.backend, w.onDevice,
                              options.cell ? options.cell->link : QString(), why);
        if (!sweep) {
            *why = "--sweep " + options.sweepRun + ": " + *why;
            return std::nullopt;
        }
    }
    m.replayJob(sweep, &r);
    if (m.t0.reducedAfterBackward || m.t0.reducedPerGradient) {
        r.noAdviceWhy = m.t0.reducedAfterBackward ? "every all_reduce starts after the backward"
                                                  : "one all_reduce per gradient";
    }
    return r;
}

std::optional<Scenario> predict(const Replay& r, const ScenarioSettings& settings, QString* why) {
    Baseline base;
    base.scenario = baselineAt(r, settings.bandwidthX,
                               settings.worldSize.value_or(r.recorded.worldSize), &base.corners);
    return predictAgainst(r, settings, base, why);
}

WhatIfRecommendation decide(const Replay& r, const std::vector<Scenario>& scenarios) {
    const Scenario& first = scenarios.empty() ? r.recorded.replayed : scenarios.front();
    return decideOver(r, scenarios, baselineAt(r, first.bandwidthX, first.worldSize));
}

std::optional<WhatIf> whatIf(const Replay& r, const WhatIfOptions& options, QString* why) {
    WhatIf w = r.recorded;
    std::vector<double> caps = options.capsMb;
    if (caps.empty()) {
        caps = kStandardCapsMb;
        caps.push_back(w.recordedCapMb);
    }
    std::sort(caps.begin(), caps.end());
    caps.erase(std::unique(caps.begin(), caps.end()), caps.end());
    const QStringList hooks = options.hooks.isEmpty() ? QStringList{w.hook} : options.hooks;
    const int worldSize = options.worldSize.value_or(w.worldSize);
    hookNotes(r, hooks, w);
    // Every scenario is weighed against the recorded settings at the scenarios' bandwidth and
    // world size, predicted once.
    Baseline base;
    base.scenario = baselineAt(r, options.bandwidthX, worldSize, &base.corners);
    for (const QString& hook : hooks) {
        for (const double capMb : caps) {
            const std::optional<Scenario> s = predictAgainst(
                r, {capMb, options.firstBucketMb, hook, options.bandwidthX, worldSize}, base, why);
            if (!s) {
                return std::nullopt;
            }
            w.scenarios.push_back(*s);
        }
    }
    w.recommendation = decideOver(r, w.scenarios, base.scenario);
    if (worldSize != w.worldSize || options.bandwidthX != 1) {
        w.notes << QString("at world size %1 and %2x the bandwidth through the ring all-reduce "
                           "(2(N-1) latency steps, 2(N-1)/N of the bytes); compute per rank "
                           "unchanged")
                       .arg(worldSize)
                       .arg(options.bandwidthX);
    }
    return w;
}

std::optional<WhatIf> whatIf(const DdpStepGraph& graph, const DdpParams* params,
                             const WhatIfOptions& options, QString* why) {
    const std::optional<Replay> r = replay(graph, params, options, why);
    return r ? whatIf(*r, options, why) : std::nullopt;
}

} // namespace commprof::analysis
