// SPDX-License-Identifier: GPL-3.0-or-later
#include "recommendation.h"

#include "analysis/cap_advice.h"
#include "analysis/ready_times.h"
#include "analysis/step_model.h"
#include "analysis/sweep_pairing.h"
#include "results/cell_files.h"
#include "results/json_kind.h"
#include "spec/comm_hooks.h"
#include "spec/units.h"
#include "trace/statistics.h"

#include <QSet>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace commprof::analysis {
namespace {

struct Members {
    CapGroup group;
    std::vector<const StudyCell*> cells;
};

// What a group's cells share: everything of cell.json but the cap and the repeat.
QString groupKey(const results::CellRecord& cell) {
    QJsonObject config = cell.config.all;
    config.remove("bucket_cap_mb");
    const QJsonObject key{{"model", cell.model},
                          {"layer", cell.layer},
                          {"world_size", cell.worldSize},
                          {"config", config}};
    return results::compactJson(key);
}

double capOf(const StudyCell* f) {
    return f->record.config.bucketCapMb;
}

// Every complete sweep offered by cell id: each layer and world size pairs with the first that
// timed all_reduce (sweep_pairing.h).
SweepPairing<const StudyCell*> allReduceSweeps(const std::vector<const StudyCell*>& sweeps) {
    SweepPairing<const StudyCell*> out;
    for (const StudyCell* f : sweeps) {
        const bool timed = !f->allReduce.empty();
        out.offer({results::networkOf(f->record.layer, f->record.config.link), f->record.worldSize},
                  true, timed, f);
    }
    return out;
}

// One measured cell as the model sees it: its profile and the scale its buckets calibrate.
struct Profile {
    double capMb = 0;
    StepProfile ready;
    double scale = 1;
};

BucketRule ruleFor(const CapGroup& g, double capMb) {
    return {g.firstBucketMb * spec::kMiB, capMb * spec::kMiB};
}

CollectiveCost costOf(const CapGroup& g, double scale) {
    CollectiveCost c = g.fit.cost(g.worldSize);
    c.scale = scale;
    return c;
}

// A cap's step from the medians of REFERENCE: the ready times of its finest cap (the most
// launches resolve them best) stretched to the median compute end, the median forward, optimizer
// and scale.
StepPrediction predictCap(const CapGroup& g, const HookModel& hook,
                          const std::vector<const Profile*>& reference, double capMb) {
    std::vector<double> forward, computeEnd, optimizer, scale;
    const Profile* finest = reference.front();
    for (const Profile* p : reference) {
        forward.push_back(p->ready.forwardUs);
        computeEnd.push_back(p->ready.computeEndUs);
        optimizer.push_back(p->ready.optimizerUs);
        scale.push_back(p->scale);
        if (p->capMb < finest->capMb) {
            finest = p;
        }
    }
    StepProfile profile = stretchedTo(finest->ready, trace::median(computeEnd).value_or(0));
    profile.forwardUs = trace::median(forward).value_or(0);
    profile.optimizerUs = trace::median(optimizer).value_or(0);
    return predictStep(profile, ruleFor(g, capMb), hook,
                       costOf(g, trace::median(scale).value_or(1)));
}

// Without a held-out error to go by, a cap not run must be predicted this much faster.
constexpr double kInSampleMargin = 0.10;

// The fastest measured cap, unless a cap not run is predicted faster than that cap's own
// prediction by more than the model's error on the caps that were run (the held-out MAPE). Both
// sides are predictions, so a bias the model has on every cap cancels.
const CapCandidate& chooseCap(const CapGroup& g) {
    const CapCandidate* fastestMeasured = nullptr;
    const CapCandidate* fastestPredicted = nullptr;
    for (const CapCandidate& c : g.candidates) {
        if (c.measuredStepMs &&
            (!fastestMeasured || *c.measuredStepMs < *fastestMeasured->measuredStepMs)) {
            fastestMeasured = &c;
        }
        if (!c.measuredStepMs &&
            (!fastestPredicted || c.predictedStepMs < fastestPredicted->predictedStepMs)) {
            fastestPredicted = &c;
        }
    }
    if (!fastestMeasured) {
        return fastestPredicted ? *fastestPredicted : g.candidates.front();
    }
    const double margin = g.heldOut ? g.mape.value_or(0) : kInSampleMargin;
    if (fastestPredicted &&
        fastestPredicted->predictedStepMs < fastestMeasured->predictedStepMs * (1.0 - margin)) {
        return *fastestPredicted;
    }
    return *fastestMeasured;
}

// The group's cells by cap, and the caps they ran at.
void listCells(Members& m) {
    CapGroup& g = m.group;
    std::ranges::sort(m.cells, {}, capOf);
    for (const StudyCell* f : m.cells) {
        g.cells << f->id;
        if (g.measuredCapsMb.empty() || g.measuredCapsMb.back() != capOf(f)) {
            g.measuredCapsMb.push_back(capOf(f));
        }
    }
}

// The sweep of the group's network and world size and its all_reduce line (g.sweepCell, g.fit);
// false with g.reason where there is none or its line is refused.
bool sweepLine(CapGroup& g, const SweepPairing<const StudyCell*>& sweeps) {
    const StudyCell* const* sweep = sweeps.find({results::networkOf(g.layer, g.link), g.worldSize});
    if (!sweep) {
        g.reason = QString("no complete all_reduce sweep of %1 at world size %2 in this folder "
                           "(add a kind: sweep entry to the matrix)")
                       .arg(results::networkOf(g.layer, g.link))
                       .arg(g.worldSize);
        return false;
    }
    g.sweepCell = (*sweep)->id;
    g.fit = fitLinear((*sweep)->allReduce);
    if (g.fit.refused) {
        g.reason =
            QString("the sweep %1's all_reduce fit was refused: %2").arg(g.sweepCell, g.fit.reason);
        return false;
    }
    return true;
}

// Each cell's profile with the scale its buckets calibrate; a cell that cannot is left out
// (g.left), the first such reason in *firstFailure.
std::vector<Profile> calibratedProfiles(Members& m, const HookModel& hook, QString* firstFailure) {
    CapGroup& g = m.group;
    std::vector<Profile> profiles;
    QString why;
    for (const StudyCell* f : m.cells) {
        std::optional<StepProfile> ready = profileFromRankFiles(f->id, f->ranks, &why);
        // The last bucket is launched as the compute ends, so any cost exposes something: a
        // cell whose buckets exposed nothing says their collectives cost nothing, and cannot
        // calibrate what they cost.
        if (ready && !spec::sendsNothing(g.hook.toStdString()) && ready->exposedUs <= 0) {
            why = f->id + ": its buckets exposed no communication, so they cannot calibrate what "
                          "a bucket costs";
            ready.reset();
        }
        if (!ready) {
            g.left << why;
            *firstFailure = firstFailure->isEmpty() ? why : *firstFailure;
            continue;
        }
        Profile p{capOf(f), std::move(*ready), 1};
        p.scale = calibratedScale(p.ready, ruleFor(g, p.capMb), hook, costOf(g, 1));
        profiles.push_back(std::move(p));
    }
    return profiles;
}

// Per cap run: the median measured step over its cells, and its standard error.
struct MeasuredCaps {
    std::map<double, std::optional<double>> stepMs;
    std::map<double, StepError> spread;
};

MeasuredCaps measuredCaps(const Members& m) {
    MeasuredCaps out;
    std::map<double, std::vector<double>> steps;
    std::map<double, std::vector<double>> iterations; // of the cap's first measured cell
    for (const StudyCell* f : m.cells) {
        if (const auto s = measuredStepMs(f->ranks); s && *s > 0) {
            steps[capOf(f)].push_back(*s);
            if (!iterations.count(capOf(f))) {
                iterations[capOf(f)] = recordedStepsMs(f->ranks);
            }
        }
    }
    for (const auto& [cap, v] : steps) {
        out.stepMs[cap] = trace::median(v);
        out.spread[cap] = stepStandardErrorMs(v, iterations[cap]);
    }
    return out;
}

// One cap predicted from every profile, and where it was run, measured and predicted from the
// others' (held out).
CapCandidate candidateAt(const Members& m, const HookModel& hook,
                         const std::vector<const Profile*>& all, MeasuredCaps& measured,
                         double cap) {
    const CapGroup& g = m.group;
    const StepPrediction p = predictCap(g, hook, all, cap);
    CapCandidate c;
    c.capMb = cap;
    c.buckets = p.buckets();
    c.predictedExposedMs = p.exposedUs / 1e3;
    c.predictedStepMs = p.stepUs / 1e3;
    if (measured.stepMs.count(cap)) {
        c.measuredStepMs = measured.stepMs[cap];
        c.stepStandardErrorMs = measured.spread[cap].standardErrorMs;
        c.spreadFrom = measured.spread[cap].from;
        std::vector<const Profile*> others;
        std::copy_if(all.begin(), all.end(), std::back_inserter(others),
                     [&](const Profile* q) { return q->capMb != cap; });
        if (!others.empty()) {
            c.heldOutStepMs = predictCap(g, hook, others, cap).stepUs / 1e3;
        }
    }
    if (const auto cell = std::ranges::find(m.cells, cap, capOf); cell != m.cells.end()) {
        c.measuredCell = (*cell)->id;
    }
    return c;
}

// The model's error on the caps that were run (g.mape), and whether every one was held out.
void scoreModel(CapGroup& g) {
    double sum = 0;
    int n = 0;
    for (const CapCandidate& c : g.candidates) {
        if (const auto e = c.error()) {
            sum += std::fabs(*e);
            ++n;
        }
    }
    if (n > 0) {
        g.mape = sum / n;
    }
    g.heldOut = n > 0 && std::ranges::all_of(g.candidates, [](const CapCandidate& c) {
                    return !c.measuredStepMs || c.heldOutStepMs;
                });
}

// A group's caps predicted from its sweep and its cells' ready times, measured beside predicted,
// and the advice against its current cap.
void predict(Members& m, const SweepPairing<const StudyCell*>& sweeps,
             const CurrentCap& currentCap) {
    CapGroup& g = m.group;
    listCells(m);
    QString why;
    const std::optional<HookModel> hook = hookModel(g.hook, g.powersgdRank, &why);
    // A group that is not predicted still says what it runs at now.
    const auto notPredicted = [&] {
        const auto [capMb, capFrom] = currentCapOf(g, currentCap);
        applyAdvice(g, capMb, capFrom);
    };
    if (!hook) {
        g.reason = why;
        return notPredicted();
    }
    if (g.worldSize < 2) {
        g.reason = "world size 1: the all-reduce moves nothing between ranks, so no cap changes "
                   "what it costs";
        return notPredicted();
    }
    if (!sweepLine(g, sweeps)) {
        return notPredicted();
    }
    QString firstFailure;
    const std::vector<Profile> profiles = calibratedProfiles(m, *hook, &firstFailure);
    if (profiles.empty()) {
        g.reason = "no cell to predict from: " + firstFailure;
        return notPredicted();
    }
    std::vector<const Profile*> all;
    std::vector<double> scales;
    for (const Profile& p : profiles) {
        all.push_back(&p);
        scales.push_back(p.scale);
    }
    g.scale = trace::median(scales).value_or(1);
    g.readyTimesFrom = profiles.front().ready.source; // the finest cap's, as predictCap takes
    MeasuredCaps measured = measuredCaps(m);
    const auto [currentMb, currentFrom] = currentCapOf(g, currentCap);
    std::vector<double> caps = kStandardCapsMb;
    caps.insert(caps.end(), g.measuredCapsMb.begin(), g.measuredCapsMb.end());
    caps.push_back(currentMb); // a cap the user names is predicted too
    std::sort(caps.begin(), caps.end());
    caps.erase(std::unique(caps.begin(), caps.end()), caps.end());
    for (const double cap : caps) {
        g.candidates.push_back(candidateAt(m, *hook, all, measured, cap));
    }
    scoreModel(g);
    g.fastestCapMb = chooseCap(g).capMb;
    applyAdvice(g, currentMb, currentFrom);
}

// What a heading prints of a group (the link within the network's name: "gloo_cpu over 2gbit").
QString headingKey(const CapGroup& g) {
    return QStringList{
        g.model, g.layer, QString::number(g.worldSize), g.hook, QString::number(g.firstBucketMb),
        g.link}
        .join('\t');
}

// Groups whose headings would read the same get the scalar settings they differ in.
void tellApart(std::map<QString, Members>& groups) {
    std::map<QString, std::vector<Members*>> byHeading;
    for (auto& [key, m] : groups) {
        byHeading[headingKey(m.group)].push_back(&m);
    }
    for (auto& [heading, same] : byHeading) {
        if (same.size() < 2) {
            continue;
        }
        std::set<QString> keys; // in order
        for (const Members* m : same) {
            const QStringList names = m->cells.front()->record.config.all.keys();
            keys.insert(names.begin(), names.end());
        }
        keys.erase("bucket_cap_mb");
        for (const QString& k : keys) {
            QSet<QString> values;
            for (const Members* m : same) {
                values.insert(results::compactJson(m->cells.front()->record.config.all.value(k)));
            }
            if (values.size() < 2) {
                continue;
            }
            for (Members* m : same) {
                m->group.settings[k] = m->cells.front()->record.config.all.value(k);
            }
        }
    }
}

} // namespace

int CapGroup::measured() const {
    return int(std::count_if(candidates.begin(), candidates.end(),
                             [](const CapCandidate& c) { return c.error().has_value(); }));
}

bool Recommendations::ok() const {
    return std::ranges::all_of(groups, [](const CapGroup& g) { return g.reason.isEmpty(); });
}

Recommendations recommend(const std::vector<StudyCell>& cells, const CurrentCap& current) {
    Recommendations r;
    std::vector<const StudyCell*> sweeps;
    std::map<QString, Members> groups;
    for (const StudyCell& f : cells) {
        if (f.status != "complete") {
            r.dropped.push_back({f.id, f.status, f.reasons}); // partial data is never quoted
            continue;
        }
        if (f.sweep) {
            sweeps.push_back(&f);
            continue;
        }
        const results::CellRecord& cell = f.record;
        Members& m = groups[groupKey(cell)];
        m.group.model = cell.model;
        m.group.layer = cell.layer;
        m.group.worldSize = cell.worldSize;
        m.group.hook = cell.config.hook;
        m.group.link = cell.config.link;
        m.group.firstBucketMb = cell.config.firstBucketMb;
        if (m.cells.empty() && !f.ranks.isEmpty()) { // the rank is the run's, not the cell's
            m.group.powersgdRank = f.ranks.first().powersgdRank;
        }
        m.cells.push_back(&f);
    }
    const auto bySweep = allReduceSweeps(sweeps);
    tellApart(groups);
    for (auto& [key, m] : groups) {
        predict(m, bySweep, current);
        r.groups.push_back(std::move(m.group));
    }
    // The groups that can be advised (more than one rank) before those of one rank, which no cap
    // changes.
    std::ranges::stable_partition(r.groups, [](const CapGroup& g) { return g.worldSize > 1; });
    // The drift is the whole study's: every group's advice is judged again with it.
    const RunDrift drift = runDrift(r.groups);
    for (CapGroup& g : r.groups) {
        g.drift = drift;
        if (g.advice.currentCapMb) {
            applyAdvice(g, *g.advice.currentCapMb, g.advice.currentFrom);
        }
    }
    return r;
}

} // namespace commprof::analysis
