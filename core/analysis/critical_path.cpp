// SPDX-License-Identifier: GPL-3.0-or-later
#include "critical_path.h"

#include <algorithm>
#include <map>

namespace commprof::analysis {

std::vector<CriticalStep> criticalPath(const DdpStepGraph& graph,
                                       const QStringList& parameterNames) {
    // Each step's last bucket (the graph holds them in step, then index order).
    std::map<int, const MatchedBucket*> lastBucket;
    std::map<int, int> bucketsOfStep, ranksOfStep;
    for (const trace::DdpRankSteps* t : graph.traces) {
        for (const trace::DdpIteration& it : t->iterations) {
            ++ranksOfStep[it.step];
        }
    }
    for (const MatchedBucket& m : graph.buckets) {
        lastBucket[m.step] = &m;
        ++bucketsOfStep[m.step];
    }
    std::vector<CriticalStep> out;
    std::map<int, bool> done;
    for (std::size_t i = 0; i < graph.traces.size(); ++i) {
        for (const trace::DdpIteration& it : graph.traces[i]->iterations) {
            if (done[it.step]) {
                continue;
            }
            const auto last = lastBucket.find(it.step);
            const MatchedBucket* m = last == lastBucket.end() ? nullptr : last->second;
            // The latest rank's path where the traces time it; else the first rank's with the step.
            const bool timed = m && m->lastRank;
            const int rank = timed ? *m->lastRank : graph.ranks[i];
            const auto r = std::find(graph.ranks.begin(), graph.ranks.end(), rank);
            const std::size_t ri = std::size_t(r - graph.ranks.begin());
            const trace::DdpIteration* own = nullptr;
            for (const trace::DdpIteration& candidate : graph.traces[ri]->iterations) {
                if (candidate.step == it.step) {
                    own = &candidate;
                }
            }
            if (!own) {
                continue;
            }
            done[it.step] = true;
            CriticalStep c;
            c.step = it.step;
            c.rank = rank;
            c.alone = graph.traces.size() > 1 && ranksOfStep[it.step] == 1;
            c.startUs = own->window.start;
            c.computeEndUs = own->computeEndUs;
            c.backwardEndUs = own->backwardEndUs;
            c.endUs = own->window.end;
            QString bucket = "no bucket";
            if (m) {
                bucket = QString("bucket %1 of %2").arg(m->index + 1).arg(bucketsOfStep[it.step]);
                const auto b = m->byRank.find(rank);
                if (b != m->byRank.end() && b->second->gradients > 0) {
                    bucket += " (" +
                              gradientName(b->second->firstGradient + b->second->gradients - 1,
                                           int(own->gradientReadyUs.size()), parameterNames) +
                              ")";
                }
            }
            c.culprit =
                timed ? QString("rank %1 ready last at %2").arg(rank).arg(bucket)
                      : QString("rank %1 (no other rank timed): its %2 last").arg(rank).arg(bucket);
            out.push_back(c);
        }
    }
    std::ranges::sort(out, {}, &CriticalStep::step);
    return out;
}

} // namespace commprof::analysis
