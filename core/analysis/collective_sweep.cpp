// SPDX-License-Identifier: GPL-3.0-or-later
#include "collective_sweep.h"

#include "analysis/cell_metrics.h"
#include "analysis/least_squares.h"
#include "spec/mapped.h"
#include "spec/rank_contract.h"
#include "trace/collectives.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace commprof::analysis {

SweepPoint sweepPoint(const QString& kind, double bytes, int worldSize,
                      const std::map<int, double>& usByRank,
                      const std::map<int, double>& typicalUsByRank) {
    SweepPoint p;
    p.bytes = bytes;
    p.us = usByRank;
    for (const auto& [rank, us] : usByRank) {
        if (us > p.slowestUs) {
            p.slowestUs = us;
            p.slowestRank = rank;
        }
    }
    for (const auto& [rank, us] : typicalUsByRank) {
        p.typicalUs = std::max(p.typicalUs, us);
    }
    if (p.slowestUs > 0) {
        p.algbwGBps = bytes / (p.slowestUs * 1e-6) / 1e9;
        if (const auto f = trace::busBandwidthFactor(kind.toStdString(), worldSize)) {
            p.busbwGBps = p.algbwGBps * *f;
        }
    }
    return p;
}

std::vector<SweepSeries> mergeSweep(const QMap<int, results::SweepRecord>& docs,
                                    QStringList* problems) {
    // (kind) -> size -> rank -> fastest us, and the median
    std::map<QString, std::map<double, std::map<int, double>>> times, typical;
    std::map<QString, QString> unsupported;
    QString layer;
    int world = 0;
    for (const results::SweepRecord& f : docs) {
        const int rank = f.rank;
        const QString name = QString::fromStdString(spec::files::kSweep.of(rank));
        world = std::max(world, f.worldSize);
        if (!f.layer.empty()) {
            layer = QString::fromStdString(f.layer);
        }
        for (const results::SweepKindRecord& k : f.kinds) {
            const QString kind = QString::fromStdString(k.kind);
            if (!k.unsupported.empty()) {
                unsupported[kind] = QString::fromStdString(k.unsupported);
            }
            for (const results::SweepSizeRecord& s : k.sizes) {
                const double bytes = double(s.bytes);
                std::vector<double> us;
                std::copy_if(s.timesUs.begin(), s.timesUs.end(), std::back_inserter(us),
                             [](double t) { return t > 0; });
                // The fastest repetition: the scheduler can only ever add time to a
                // collective, so on a shared machine the minimum is what the link does and a
                // median still carries the preemptions of a busy moment.
                if (!us.empty() && rank >= 0) {
                    times[kind][bytes][rank] = *std::min_element(us.begin(), us.end());
                    typical[kind][bytes][rank] = *median(us);
                } else if (problems) {
                    *problems << QString("%1: %2 at %3 bytes has no timed iteration")
                                     .arg(name, kind)
                                     .arg(bytes, 0, 'f', 0);
                }
            }
        }
    }
    for (const auto& [kind, why] : unsupported) {
        times[kind]; // an unsupported kind is a series too, with no points
    }
    std::vector<SweepSeries> out;
    for (const auto& [kind, sizes] : times) {
        SweepSeries s{layer, kind, world, {}, unsupported.count(kind) ? unsupported[kind] : ""};
        for (const auto& [bytes, ranks] : sizes) {
            if (int(ranks.size()) != world && problems) {
                *problems << QString("%1 at %2 bytes: %3 of %4 ranks reported")
                                 .arg(kind)
                                 .arg(bytes, 0, 'f', 0)
                                 .arg(ranks.size())
                                 .arg(world);
            }
            s.points.push_back(sweepPoint(kind, bytes, world, ranks, typical[kind][bytes]));
        }
        out.push_back(s);
    }
    return out;
}

namespace {

// The points of a positive size and a positive time (of TIME), smallest size first.
std::vector<const SweepPoint*> timedBySize(const std::vector<SweepPoint>& points,
                                           double SweepPoint::*time) {
    std::vector<const SweepPoint*> out;
    for (const SweepPoint& p : points) {
        if (p.bytes > 0 && p.*time > 0) {
            out.push_back(&p);
        }
    }
    std::ranges::sort(out, {}, &SweepPoint::bytes);
    return out;
}

} // namespace

std::optional<double> typicalUsAt(const std::vector<SweepPoint>& points, double bytes) {
    const std::vector<const SweepPoint*> known = timedBySize(points, &SweepPoint::typicalUs);
    if (known.empty()) {
        return std::nullopt;
    }
    if (bytes <= known.front()->bytes) {
        return known.front()->typicalUs;
    }
    if (bytes >= known.back()->bytes) {
        // Past the largest size the time is bandwidth-bound: in proportion to the bytes.
        return known.back()->typicalUs * bytes / known.back()->bytes;
    }
    const auto above = std::lower_bound(known.begin(), known.end(), bytes,
                                        [](const SweepPoint* p, double b) { return p->bytes < b; });
    const SweepPoint* hi = *above;
    const SweepPoint* lo = *(above - 1);
    const double t = std::log(bytes / lo->bytes) / std::log(hi->bytes / lo->bytes);
    return std::exp(std::log(lo->typicalUs) + t * std::log(hi->typicalUs / lo->typicalUs));
}

LinearFit fitSeries(const SweepSeries& series) {
    if (series.worldSize < 2) {
        LinearFit fit = fitLinear({});
        fit.reason = "world size 1: nothing moves between ranks, so there is no link to fit";
        return fit;
    }
    return fitLinear(series.points);
}

LinearFit fitLinear(const std::vector<SweepPoint>& points) {
    LinearFit fit;
    fit.method = "least squares of time = alpha + bytes * beta, each size weighted by "
                 "1 / time; R^2 of the same weighted problem";
    std::vector<const SweepPoint*> use = timedBySize(points, &SweepPoint::slowestUs);
    // One alpha and one beta describe one regime. Where the bandwidth falls well below the peak
    // it had reached and stays there (messages past a cache size, another algorithm), the sizes
    // from there on are another regime and are left out, said so. One slow size that the next
    // recovers from is noise, and stays in.
    double peak = 0, peakBytes = 0;
    for (std::size_t cut = 0; cut < use.size(); ++cut) {
        const bool staysBelow =
            peak > 0 && std::all_of(use.begin() + long(cut), use.end(), [&](const SweepPoint* p) {
                return p->algbwGBps < kRegimeDrop * peak;
            });
        if (staysBelow) {
            fit.leftOutFromBytes = use[cut]->bytes;
            fit.note = QString("sizes from %1 B on are left out: bandwidth stayed below %2 % of "
                               "its peak at %3 B")
                           .arg(use[cut]->bytes, 0, 'f', 0)
                           .arg(kRegimeDrop * 100.0, 0, 'f', 0)
                           .arg(peakBytes, 0, 'f', 0);
            use.resize(cut);
            break;
        }
        if (use[cut]->algbwGBps > peak) {
            peak = use[cut]->algbwGBps;
            peakBytes = use[cut]->bytes;
        }
    }
    std::set<double> sizes;
    for (const SweepPoint* p : use) {
        sizes.insert(p->bytes);
    }
    fit.sizes = int(sizes.size());
    if (fit.sizes > 0) {
        fit.fromBytes = *sizes.begin();
        fit.toBytes = *sizes.rbegin();
    }
    if (fit.sizes < kMinFitSizes) {
        fit.reason =
            QString("%1 size(s): a fit needs at least %2").arg(fit.sizes).arg(kMinFitSizes);
        return fit;
    }
    const double span = fit.toBytes / fit.fromBytes;
    if (span < kMinFitSpan) {
        fit.reason = QString("the sizes span %1x: a fit needs at least %2x")
                         .arg(span, 0, 'g', 3)
                         .arg(kMinFitSpan, 0, 'g', 3);
        return fit;
    }
    // time = alpha x 1 + beta x bytes by the one weighted least squares (least_squares.h).
    const LsFit ls =
        weightedLeastSquares(spec::mapped<std::vector<LsPoint>>(use, [](const SweepPoint* p) {
            return LsPoint{1.0, p->bytes, p->slowestUs, 1.0 / p->slowestUs};
        }));
    if (!(ls.det > 0)) {
        fit.reason = "the sizes do not determine both terms";
        return fit;
    }
    fit.betaUsPerByte = ls.b;
    fit.alphaUs = ls.a;
    const double mean = ls.s1y / ls.s11; // the weighted mean time
    double ssRes = 0, ssTot = 0;
    for (const SweepPoint* p : use) {
        const double w = 1.0 / p->slowestUs;
        ssRes += w * std::pow(p->slowestUs - fit.predictUs(p->bytes), 2);
        ssTot += w * std::pow(p->slowestUs - mean, 2);
    }
    fit.r2 = ssTot > 0 ? 1.0 - ssRes / ssTot : 0.0;
    if (!(fit.betaUsPerByte > 0)) {
        fit.reason = "beta came out negative or zero: time does not grow with size here";
        return fit;
    }
    if (!(fit.r2 >= 0)) {
        fit.reason = QString("R^2 = %1: the line describes these times worse than their mean")
                         .arg(fit.r2, 0, 'f', 2);
        return fit;
    }
    fit.refused = false;
    return fit;
}

results::Completeness judgeRead(const results::CellFiles& f, const QString& traceError,
                                std::vector<SweepSeries>* series) {
    QStringList problems;
    if (f.isSweep()) {
        std::vector<SweepSeries> merged = mergeSweep(f.sweeps, &problems);
        if (series) {
            *series = std::move(merged);
        }
    }
    if (!traceError.isEmpty()) {
        problems << "trace unreadable: " + traceError;
    }
    results::Completeness c = results::judge(f);
    c.reasons << problems;
    if (!problems.isEmpty() && c.status == "complete") {
        c.status = "incomplete";
    }
    return c;
}

std::vector<SweepPoint> allReducePoints(const QMap<int, results::SweepRecord>& docs) {
    for (const SweepSeries& series : mergeSweep(docs)) {
        if (series.kind == "all_reduce") {
            return series.points;
        }
    }
    return {};
}

} // namespace commprof::analysis
