// SPDX-License-Identifier: GPL-3.0-or-later
#include "ddp_step_graph.h"

#include "analysis/json_null.h"
#include "trace/statistics.h"

#include <QJsonArray>

#include <algorithm>
#include <set>

namespace commprof::analysis {
namespace {

// A rank's iteration of `step`; nullptr when its trace lacks it.
const trace::DdpIteration* iterationOf(const trace::DdpRankSteps& t, int step) {
    for (const trace::DdpIteration& it : t.iterations) {
        if (it.step == step) {
            return &it;
        }
    }
    return nullptr;
}

// The bucket's key within its step: its sequence number where every rank's has one, else its
// launch order.
bool everyBucketHasSeq(const std::vector<const trace::DdpIteration*>& its) {
    for (const trace::DdpIteration* it : its) {
        for (const trace::BucketCollective& b : it->buckets) {
            if (!b.seq) {
                return false;
            }
        }
    }
    return true;
}

void matchStep(DdpStepGraph& g, int step) {
    std::vector<const trace::DdpIteration*> its(g.traces.size(), nullptr);
    std::vector<const trace::DdpIteration*> present;
    for (std::size_t i = 0; i < g.traces.size(); ++i) {
        its[i] = iterationOf(*g.traces[i], step);
        if (its[i]) {
            present.push_back(its[i]);
        }
    }
    const bool bySeq = everyBucketHasSeq(present);
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
        double waited = 0;
        for (const auto& [rank, w] : m.waitUs) {
            waited += w;
        }
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

QJsonObject toJson(const DdpStepGraph& g) {
    QJsonArray ranks;
    for (std::size_t i = 0; i < g.traces.size(); ++i) {
        const trace::DdpRankSteps& t = *g.traces[i];
        QJsonArray iterations;
        for (const trace::DdpIteration& it : t.iterations) {
            QJsonArray ready;
            for (const double r : it.gradientReadyUs) {
                ready.append(r - it.backwardStartUs);
            }
            QJsonArray buckets;
            for (const trace::BucketCollective& b : it.buckets) {
                const auto rel = [&](const std::optional<double>& v) {
                    return v ? QJsonValue(*v - it.backwardStartUs) : QJsonValue(QJsonValue::Null);
                };
                buckets.append(QJsonObject{{"launch_us", b.launchUs - it.backwardStartUs},
                                           {"start_us", rel(b.startUs)},
                                           {"end_us", rel(b.endUs)},
                                           {"elements", numberOrNull(b.elements)},
                                           {"bytes", numberOrNull(b.bytes)},
                                           {"seq", numberOrNull(b.seq)},
                                           {"first_gradient", b.firstGradient},
                                           {"gradients", b.gradients}});
            }
            iterations.append(QJsonObject{{"step", it.step},
                                          {"step_us", it.stepUs()},
                                          {"forward_us", it.forwardUs()},
                                          {"backward_compute_us", it.backwardComputeUs()},
                                          {"wait_for_last_bucket_us", it.afterComputeUs()},
                                          {"optimizer_us", it.afterBackwardUs()},
                                          {"gradient_ready_us", ready},
                                          {"buckets", buckets}});
        }
        ranks.append(QJsonObject{{"rank", g.ranks[i]},
                                 {"source", QString::fromStdString(t.source)},
                                 {"backend", QString::fromStdString(t.backend)},
                                 {"legacy_export", t.legacy},
                                 {"steps_marked", t.stepsMarked},
                                 {"sized", t.sized},
                                 {"iterations", iterations}});
    }
    QJsonArray buckets;
    for (const MatchedBucket& m : g.buckets) {
        QJsonObject wait;
        for (const auto& [rank, w] : m.waitUs) {
            wait[QString::number(rank)] = w;
        }
        QJsonArray present;
        for (const auto& [rank, b] : m.byRank) {
            present.append(rank);
        }
        buckets.append(QJsonObject{
            {"step", m.step},
            {"index", m.index},
            {"seq", numberOrNull(m.seq)},
            {"ranks", present},
            {"unmatched", m.unmatched},
            {"last_rank", m.lastRank ? QJsonValue(*m.lastRank) : QJsonValue(QJsonValue::Null)},
            {"wait_us", wait}});
    }
    QJsonArray parts;
    for (const IterationParts& p : g.iterations) {
        parts.append(QJsonObject{{"rank", p.rank},
                                 {"step", p.step},
                                 {"step_us", p.stepUs},
                                 {"compute_us", p.computeUs},
                                 {"exposed_comm_us", p.exposedCommUs},
                                 {"straggler_wait_us", p.stragglerWaitUs},
                                 {"optimizer_us", p.optimizerUs}});
    }
    const auto culprits = [](const std::vector<Culprit>& v) {
        QJsonArray out;
        for (const Culprit& c : v) {
            out.append(
                QJsonObject{{"what", c.what}, {"wait_us", c.waitUs}, {"buckets", c.buckets}});
        }
        return out;
    };
    return QJsonObject{{"ranks", ranks},
                       {"buckets", buckets},
                       {"critical_path", parts},
                       {"culprits", QJsonObject{{"ranks", culprits(g.culpritRanks)},
                                                {"gradients", culprits(g.culpritGradients)}}},
                       {"notes", QJsonArray::fromStringList(g.notes)}};
}

QString describe(const Culprit& c) {
    return QString("%1: the other ranks waited %2 ms for it at %3 buckets")
        .arg(c.what)
        .arg(c.waitUs / 1e3, 0, 'f', 2)
        .arg(c.buckets);
}

QString describe(const DdpStepGraph& g) {
    QString out;
    for (std::size_t i = 0; i < g.traces.size(); ++i) {
        const trace::DdpRankSteps& t = *g.traces[i];
        out += QString("rank %1 (%2, %3%4): %5 iterations\n")
                   .arg(g.ranks[i])
                   .arg(QString::fromStdString(t.source))
                   .arg(t.backend.empty() ? QString("backend unknown")
                                          : QString::fromStdString(t.backend))
                   .arg(t.legacy ? ", legacy export" : "")
                   .arg(t.iterations.size());
        for (const trace::DdpIteration& it : t.iterations) {
            out += QString("  step %1: %2 ms = forward %3 + backward compute %4 + after it %5 + "
                           "optimizer %6; %7 gradients, %8 buckets\n")
                       .arg(it.step)
                       .arg(it.stepUs() / 1e3, 0, 'f', 2)
                       .arg(it.forwardUs() / 1e3, 0, 'f', 2)
                       .arg(it.backwardComputeUs() / 1e3, 0, 'f', 2)
                       .arg(it.afterComputeUs() / 1e3, 0, 'f', 2)
                       .arg(it.afterBackwardUs() / 1e3, 0, 'f', 2)
                       .arg(it.gradientReadyUs.size())
                       .arg(it.buckets.size());
            for (const trace::BucketCollective& b : it.buckets) {
                out += QString("    bucket: launch %1 ms, %2, %3 gradients, %4\n")
                           .arg((b.launchUs - it.backwardStartUs) / 1e3, 0, 'f', 2)
                           .arg(b.startUs
                                    ? QString("runs %1 .. %2 ms")
                                          .arg((*b.startUs - it.backwardStartUs) / 1e3, 0, 'f', 2)
                                          .arg((*b.endUs - it.backwardStartUs) / 1e3, 0, 'f', 2)
                                    : QString("no execution in the trace"))
                           .arg(b.gradients)
                           .arg(b.bytes ? QString("%1 bytes").arg(*b.bytes, 0, 'f', 0)
                                        : QString("size unknown"));
            }
        }
    }
    out += "critical path (ms): rank step  step  compute  exposed comm  straggler wait  "
           "optimizer\n";
    for (const IterationParts& p : g.iterations) {
        out += QString("  %1 %2 %3 %4 %5 %6 %7\n")
                   .arg(p.rank, 4)
                   .arg(p.step, 4)
                   .arg(p.stepUs / 1e3, 8, 'f', 2)
                   .arg(p.computeUs / 1e3, 8, 'f', 2)
                   .arg(p.exposedCommUs / 1e3, 12, 'f', 2)
                   .arg(p.stragglerWaitUs / 1e3, 14, 'f', 2)
                   .arg(p.optimizerUs / 1e3, 9, 'f', 2);
    }
    for (const auto* list : {&g.culpritRanks, &g.culpritGradients}) {
        for (const Culprit& c : *list) {
            out += "culprit: " + describe(c) + "\n";
        }
    }
    for (const QString& n : g.notes) {
        out += "note: " + n + "\n";
    }
    return out;
}

} // namespace commprof::analysis
