// SPDX-License-Identifier: GPL-3.0-or-later
#include "ddp_step_graph_text.h"

#include "analysis/number_text.h"
#include "results/json_kind.h"
#include "trace/json_null.h"

#include <QJsonArray>

namespace commprof::report {

QJsonObject toJson(const analysis::DdpStepGraph& g) {
    const auto iteration = [](const trace::DdpIteration& it) {
        const QJsonArray ready = results::jsonArray(
            it.gradientReadyUs, [&](double r) { return r - it.backwardStartUs; });
        const auto rel = [&](const std::optional<double>& v) {
            return v ? QJsonValue(*v - it.backwardStartUs) : QJsonValue();
        };
        const auto bucket = [&](const trace::BucketCollective& b) {
            return QJsonObject{{"launch_us", b.launchUs - it.backwardStartUs},
                               {"start_us", rel(b.startUs)},
                               {"end_us", rel(b.endUs)},
                               {"elements", trace::numberOrNull(b.elements)},
                               {"bytes", trace::numberOrNull(b.bytes)},
                               {"seq", trace::numberOrNull(b.seq)},
                               {"first_gradient", b.firstGradient},
                               {"gradients", b.gradients}};
        };
        return QJsonObject{{"step", it.step},
                           {"step_us", it.stepUs()},
                           {"forward_us", it.forwardUs()},
                           {"backward_compute_us", it.backwardComputeUs()},
                           {"wait_for_last_bucket_us", it.afterComputeUs()},
                           {"optimizer_us", it.afterBackwardUs()},
                           {"gradient_ready_us", ready},
                           {"buckets", results::jsonArray(it.buckets, bucket)}};
    };
    QJsonArray ranks;
    for (std::size_t i = 0; i < g.traces.size(); ++i) {
        const trace::DdpRankSteps& t = *g.traces[i];
        ranks.append(QJsonObject{{"rank", g.ranks[i]},
                                 {"source", QString::fromStdString(t.source)},
                                 {"backend", QString::fromStdString(t.backend)},
                                 {"legacy_export", t.legacy},
                                 {"steps_marked", t.stepsMarked},
                                 {"sized", t.sized},
                                 {"iterations", results::jsonArray(t.iterations, iteration)}});
    }
    const auto matched = [](const analysis::MatchedBucket& m) {
        QJsonObject wait;
        for (const auto& [rank, w] : m.waitUs) {
            wait[QString::number(rank)] = w;
        }
        return QJsonObject{
            {"step", m.step},
            {"index", m.index},
            {"seq", trace::numberOrNull(m.seq)},
            {"ranks", results::jsonArray(m.byRank, [](const auto& rb) { return rb.first; })},
            {"unmatched", m.unmatched},
            {"last_rank", trace::numberOrNull(m.lastRank)},
            {"wait_us", wait}};
    };
    const auto part = [](const analysis::IterationParts& p) {
        return QJsonObject{{"rank", p.rank},
                           {"step", p.step},
                           {"step_us", p.stepUs},
                           {"compute_us", p.computeUs},
                           {"exposed_comm_us", p.exposedCommUs},
                           {"straggler_wait_us", p.stragglerWaitUs},
                           {"optimizer_us", p.optimizerUs}};
    };
    const auto culprits = [](const std::vector<analysis::Culprit>& v) {
        return results::jsonArray(v, [](const analysis::Culprit& c) {
            return QJsonObject{{"what", c.what}, {"wait_us", c.waitUs}, {"buckets", c.buckets}};
        });
    };
    return QJsonObject{{"ranks", ranks},
                       {"buckets", results::jsonArray(g.buckets, matched)},
                       {"critical_path", results::jsonArray(g.iterations, part)},
                       {"culprits", QJsonObject{{"ranks", culprits(g.culpritRanks)},
                                                {"gradients", culprits(g.culpritGradients)}}},
                       {"notes", QJsonArray::fromStringList(g.notes)}};
}

QString describe(const analysis::Culprit& c) {
    return QString("%1: the other ranks waited %2 ms for it at %3")
        .arg(c.what)
        .arg(c.waitUs / 1e3, 0, 'f', 2)
        .arg(analysis::countText(c.buckets, "bucket"));
}

QString describe(const analysis::DdpStepGraph& g) {
    const auto ms = [](double us) { return QString::number(us / 1e3, 'f', 2); };
    QString out;
    for (std::size_t i = 0; i < g.traces.size(); ++i) {
        const trace::DdpRankSteps& t = *g.traces[i];
        out += QString("rank %1 (%2, %3%4): %5\n")
                   .arg(g.ranks[i])
                   .arg(QString::fromStdString(t.source))
                   .arg(t.backend.empty() ? QString("backend unknown")
                                          : QString::fromStdString(t.backend))
                   .arg(t.legacy ? ", legacy export" : "")
                   .arg(analysis::countText(qint64(t.iterations.size()), "iteration"));
        for (const trace::DdpIteration& it : t.iterations) {
            out += QString("  step %1: %2 ms = forward %3 + backward compute %4 + after it %5 + "
                           "optimizer %6; %7, %8\n")
                       .arg(QString::number(it.step), ms(it.stepUs()), ms(it.forwardUs()),
                            ms(it.backwardComputeUs()), ms(it.afterComputeUs()),
                            ms(it.afterBackwardUs()),
                            analysis::countText(qint64(it.gradientReadyUs.size()), "gradient"),
                            analysis::countText(qint64(it.buckets.size()), "bucket"));
            for (const trace::BucketCollective& b : it.buckets) {
                out += QString("    bucket: launch %1 ms, %2, %3 gradients, %4\n")
                           .arg(ms(b.launchUs - it.backwardStartUs))
                           .arg(b.startUs ? QString("runs %1 .. %2 ms")
                                                .arg(ms(*b.startUs - it.backwardStartUs),
                                                     ms(*b.endUs - it.backwardStartUs))
                                          : QString("no execution in the trace"))
                           .arg(b.gradients)
                           .arg(b.bytes ? QString("%1 bytes").arg(*b.bytes, 0, 'f', 0)
                                        : QString("size unknown"));
            }
        }
    }
    out += "critical path (ms): rank step  step  compute  exposed comm  straggler wait  "
           "optimizer\n";
    for (const analysis::IterationParts& p : g.iterations) {
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
        for (const analysis::Culprit& c : *list) {
            out += "culprit: " + describe(c) + "\n";
        }
    }
    for (const QString& n : g.notes) {
        out += "note: " + n + "\n";
    }
    return out;
}

QString describeWarnings(const analysis::DdpJob& job) {
    QString out;
    if (job.incomplete) {
        out += "warning: incomplete job: a rank's trace is cut or missing, so what follows is "
               "part of the job, not the whole\n";
    }
    for (const QString& w : job.warnings) {
        out += "warning: " + w + "\n";
    }
    return out;
}

QJsonObject withWarnings(QJsonObject doc, const analysis::DdpJob& job) {
    doc.insert("warnings", QJsonArray::fromStringList(job.warnings));
    doc.insert("incomplete", job.incomplete);
    return doc;
}

} // namespace commprof::report
