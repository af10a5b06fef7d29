// SPDX-License-Identifier: GPL-3.0-or-later
#include "ddp_step_graph.h"

#include "spec/mapped.h"

#include <algorithm>
#include <numeric>
#include <set>

namespace commprof::analysis {
namespace {

// A rank's iteration of `step`; nullptr when its trace lacks it.
const trace::DdpIteration* iterationOf(const trace::DdpRankSteps& t, int step) {
    const auto it = std::ranges::find(t.iterations, step, &trace::DdpIteration::step);
    return it == t.iterations.end() ? nullptr : &*it;
}

// The bucket's key within its step: its sequence number where every rank's has one, else its
// launch order. `its` holds nullptr for a rank without the step.
bool everyBucketHasSeq(const std::vector<const trace::DdpIteration*>& its) {
    return std::ranges::all_of(its, [](const trace::DdpIteration* it) {
        return !it || std::ranges::all_of(it->buckets, [](const trace::BucketCollective& b) {
            return b.seq.has_value();
        });
    });
}

void matchStep(DdpStepGraph& g, int step) {
    const auto its = spec::mapped<std::vector<const trace::DdpIteration*>>(
        g.traces, [&](const trace::DdpRankSteps* t) { return iterationOf(*t, step); });
    const bool bySeq = everyBucketHasSeq(its);
    std::map<std::int64_t, MatchedBucket> byKey;
    for (std::size_t i = 0; i < g.traces.size(); ++i) {
        if (!its[i]) {
            continue;
        }
        for (std::size_t k = 0; k < its[i]->buckets.size(); ++k) {
            const trace::BucketCollective& b = its[i]->buckets[k];
            const std::int64_t key = bySeq ? *b.seq : std::int64_t(k);
            MatchedBucket& m = byKey[key];
            m.step = step;
            m.seq = bySeq ? b.seq : std::nullopt;
            m.byRank[g.ranks[i]] = &b;
        }
    }
    int index = 0;
    for (auto& [key, m] : byKey) {
        m.index = index++;
        m.unmatched = m.byRank.size() != g.traces.size();
        // The shortest collective is the latest rank's: it waited for no one.
        std::optional<double> shortest;
        bool timed = !m.unmatched && m.byRank.size() > 1;
        for (const auto& [rank, b] : m.byRank) {
            if (!b->startUs || !b->endUs) {
                timed = false;
                break;
            }
            const double d = *b->endUs - *b->startUs;
            if (!shortest || d < *shortest) {
                shortest = d;
                m.lastRank = rank;
            }
        }
        if (!timed) {
            m.lastRank.reset();
        } else {
            for (const auto& [rank, b] : m.byRank) {
                m.waitUs[rank] = (*b->endUs - *b->startUs) - *shortest;
            }
        }
        g.buckets.push_back(std::move(m));
    }
}

std::vector<Culprit> ranked(std::map<QString, Culprit>& all) {
    std::vector<Culprit> out;
    for (auto& [key, c] : all) {
        if (c.waitUs > 0) {
            out.push_back(c);
        }
    }
    std::sort(out.begin(), out.end(),
              [](const Culprit& a, const Culprit& b) { return a.waitUs > b.waitUs; });
    if (out.size() > 5) {
        out.resize(5);
    }
    return out;
}

} // namespace

QString gradientName(int readyIndex, int gradients, const QStringList& names) {
    QString out = QString("gradient %1 of %2 in ready order").arg(readyIndex + 1).arg(gradients);
    // Ready order is reverse registration order.
    const int registration = gradients - 1 - readyIndex;
    if (names.size() == gradients && registration >= 0) {
        out += QString(" (%1)").arg(names[registration]);
    }
    return out;
}

DdpStepGraph buildStepGraph(const std::vector<const trace::DdpRankSteps*>& traces,
                            const std::vector<int>& ranks, const QStringList& parameterNames) {
    DdpStepGraph g;
    g.traces = traces;
    g.ranks = ranks;
    std::set<int> steps;
    for (const trace::DdpRankSteps* t : traces) {
        for (const trace::DdpIteration& it : t->iterations) {
            steps.insert(it.step);
        }
    }
    for (const int step : steps) {
        matchStep(g, step);
    }
    std::map<QString, Culprit> byRank, byGradient;
    for (const MatchedBucket& m : g.buckets) {
        if (!m.lastRank) {
            continue;
        }
        const double waited =
            std::accumulate(m.waitUs.begin(), m.waitUs.end(), 0.0,
                            [](double sum, const auto& rankWait) { return sum + rankWait.second; });
        Culprit& r = byRank[QString::number(*m.lastRank)];
        r.what = QString("rank %1").arg(*m.lastRank);
        r.waitUs += waited;
        ++r.buckets;
        const std::size_t i =
            std::size_t(std::find(ranks.begin(), ranks.end(), *m.lastRank) - ranks.begin());
        const trace::DdpIteration* it = iterationOf(*traces[i], m.step);
        const trace::BucketCollective* b = m.byRank.at(*m.lastRank);
        if (it && b->gradients > 0) {
            const QString name = gradientName(b->firstGradient + b->gradients - 1,
                                              int(it->gradientReadyUs.size()), parameterNames);
            Culprit& c = byGradient[name];
            c.what = name;
            c.waitUs += waited;
            ++c.buckets;
        }
    }
    g.culpritRanks = ranked(byRank);
    g.culpritGradients = ranked(byGradient);

    for (std::size_t i = 0; i < traces.size(); ++i) {
        for (const trace::DdpIteration& it : traces[i]->iterations) {
            IterationParts p;
            p.rank = ranks[i];
            p.step = it.step;
            p.stepUs = it.stepUs();
            p.optimizerUs = it.afterBackwardUs();
            const double after = it.afterComputeUs();
            // The wait for the last bucket's latest rank, within what the backward waited.
            double straggler = 0;
            for (auto m = g.buckets.rbegin(); m != g.buckets.rend(); ++m) {
                if (m->step == it.step && m->byRank.count(ranks[i])) {
                    if (m->waitUs.count(ranks[i])) {
                        straggler = std::min(after, m->waitUs.at(ranks[i]));
                    }
                    break;
                }
            }
            p.stragglerWaitUs = straggler;
            p.exposedCommUs = after - straggler;
            p.computeUs = it.forwardUs() + it.backwardComputeUs();
            g.iterations.push_back(p);
        }
    }
    const std::size_t unmatched = std::size_t(std::count_if(
        g.buckets.begin(), g.buckets.end(), [](const MatchedBucket& m) { return m.unmatched; }));
    if (unmatched > 0) {
        g.notes << QString("%1 of %2 bucket collectives are unmatched: some rank's trace lacks "
                           "them")
                       .arg(unmatched)
                       .arg(g.buckets.size());
    }
    if (traces.size() == 1) {
        g.notes << "one rank's trace: no wait for a straggler can be read, the other ranks are "
                   "assumed alike";
    }
    for (std::size_t i = 0; i < traces.size(); ++i) {
        for (const std::string& n : traces[i]->notes) {
            g.notes << QString("rank %1: %2").arg(ranks[i]).arg(QString::fromStdString(n));
        }
    }
    return g;
}

} // namespace commprof::analysis
