// SPDX-License-Identifier: GPL-3.0-or-later
#include "ddp_prediction.h"

#include "spec/comm_hooks.h"

#include <algorithm>
#include <map>

namespace commprof::analysis {
namespace {

// One bucket of one step, on every rank.
struct Instance {
    std::vector<const BucketMatch*> ranks;
    std::vector<const RankFigures*> figures; // the rank of each, in the same order
    bool complete() const {
        return std::all_of(ranks.begin(), ranks.end(),
                           [](const BucketMatch* b) { return b->backendUs && b->backendStartUs; });
    }
    // The collective's own time: the span of the rank that arrived last.
    double ownUs() const { return *last()->backendUs; }
    // How long the first rank to arrive waited for the last.
    double waitUs() const {
        const auto first = std::min_element(ranks.begin(), ranks.end(), byStart);
        return *last()->backendStartUs - *(*first)->backendStartUs;
    }
    // The share of `cpus` cores the collective had over its own time: each rank runs it on one
    // thread, and its compute on its intra-op threads for the part of that time it ran.
    double cpuShare(int cpus) const {
        const trace::Span own{*last()->backendStartUs, *last()->backendStartUs + ownUs()};
        if (cpus <= 0 || own.length() <= 0) {
            return 1.0;
        }
        double runnable = 0;
        for (std::size_t i = 0; i < ranks.size(); ++i) {
            const double computing = figures[i]->hostCompute.lengthWithin(own) / own.length();
            runnable += 1.0 + figures[i]->threads * computing;
        }
        return std::min(1.0, cpus / runnable);
    }

private:
    static bool byStart(const BucketMatch* a, const BucketMatch* b) {
        return *a->backendStartUs < *b->backendStartUs;
    }
    const BucketMatch* last() const {
        return *std::max_element(ranks.begin(), ranks.end(), byStart);
    }
};

std::nullopt_t fail(QString* why, const QString& text) {
    if (why) {
        *why = text;
    }
    return std::nullopt;
}

} // namespace

QString notPredictedForHook(const QString& hook) {
    const spec::CommHook* row = spec::findCommHook(hook.toStdString());
    if (row && row->wire == spec::HookWire::Gradient) {
        return {};
    }
    if (row && row->wire == spec::HookWire::Nothing) {
        return QString("not predicted: the %1 hook communicates nothing").arg(hook);
    }
    return QString("not predicted: the sweep times float32 all-reduces of a bucket's bytes, and "
                   "the %1 hook sends something else (commprof recommend models it)")
        .arg(hook);
}

std::optional<DdpPrediction> predictDdp(const std::vector<RankFigures>& ranks,
                                        const std::vector<SweepPoint>& allReduce,
                                        const LinearFit& fit, int hostCpus, QString* why) {
    if (ranks.size() < 2) {
        return fail(why, "world size 1: the all-reduce moves nothing between ranks; not predicted");
    }
    if (!typicalUsAt(allReduce, 1)) {
        return fail(why, "the all_reduce sweep has no timed size");
    }
    // step -> bucket index -> the bucket on every rank
    std::map<int, std::map<int, Instance>> steps;
    std::vector<double> queued, backend;
    for (const RankFigures& r : ranks) {
        std::map<int, std::pair<double, double>> perStep; // step -> (queued, backend) sums
        for (const BucketMatch& b : r.agreement.buckets) {
            Instance& instance = steps[b.iteration][b.index];
            instance.ranks.push_back(&b);
            instance.figures.push_back(&r);
            perStep[b.iteration].first += b.queuedUs.value_or(0);
            perStep[b.iteration].second += b.backendUs.value_or(0);
        }
        for (const auto& [step, sums] : perStep) {
            queued.push_back(sums.first);
            backend.push_back(sums.second);
        }
    }
    DdpPrediction d;
    d.hostCpus = hostCpus;
    std::vector<double> measured, waits;
    struct Samples {
        double bytes = 0;
        std::vector<double> own, wait, queued, share;
    };
    std::map<int, Samples> byIndex;
    const std::size_t world = ranks.size();
    for (const auto& [step, buckets] : steps) {
        const bool whole = std::all_of(buckets.begin(), buckets.end(), [&](const auto& b) {
            return b.second.ranks.size() == world && b.second.complete();
        });
        if (!whole) {
            continue; // a rank or a span missing: no like-for-like sum for this step
        }
        ++d.steps;
        double own = 0, wait = 0;
        for (const auto& [index, instance] : buckets) {
            own += instance.ownUs();
            wait += instance.waitUs();
            Samples& s = byIndex[index];
            s.bytes = instance.ranks.front()->bytes;
            s.own.push_back(instance.ownUs());
            s.wait.push_back(instance.waitUs());
            s.share.push_back(instance.cpuShare(hostCpus));
            for (const BucketMatch* b : instance.ranks) {
                s.queued.push_back(b->queuedUs.value_or(0));
            }
        }
        measured.push_back(own);
        waits.push_back(wait);
    }
    if (d.steps == 0) {
        return fail(why, "no traced step has every bucket's backend span on every rank");
    }
    d.measuredUsPerStep = *median(measured);
    d.measuredMinUs = *std::min_element(measured.begin(), measured.end());
    d.measuredMaxUs = *std::max_element(measured.begin(), measured.end());
    d.waitUsPerStep = *median(waits);
    d.queuedUsPerStep = median(queued).value_or(0);
    d.backendUsPerStep = median(backend).value_or(0);
    double fitSum = 0;
    for (const auto& [index, s] : byIndex) {
        BucketPrediction b;
        b.index = index;
        b.bytes = s.bytes;
        b.sweepUs = *typicalUsAt(allReduce, s.bytes);
        b.cpuShare = *median(s.share);
        b.predictedUs = b.sweepUs / b.cpuShare;
        if (!fit.refused) {
            b.fitUs = fit.predictUs(s.bytes);
            fitSum += *b.fitUs;
        }
        b.measuredUs = *median(s.own);
        b.waitUs = *median(s.wait);
        b.queuedUs = *median(s.queued);
        b.samples = int(s.own.size());
        d.predictedUsPerStep += b.predictedUs;
        d.sweepUsPerStep += b.sweepUs;
        d.buckets.push_back(b);
    }
    if (!fit.refused) {
        d.fitUsPerStep = fitSum;
    }
    return d;
}

} // namespace commprof::analysis
