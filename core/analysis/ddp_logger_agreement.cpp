// SPDX-License-Identifier: GPL-3.0-or-later
#include "ddp_logger_agreement.h"

#include "analysis/instrument_agreement.h"
#include "spec/comm_hooks.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace commprof::analysis {
namespace {

struct Extent {
    double firstStartNs = 0, lastEndNs = 0;
};

// Per iteration: the first bucket launch to the last bucket completion the hook recorded.
std::map<int, Extent> hookExtents(const results::RankRecord& rankFile) {
    std::map<int, Extent> out;
    for (const results::BucketRecord& b : rankFile.buckets) {
        const double start = double(b.startNs), end = double(b.endNs);
        const auto [it, fresh] = out.try_emplace(b.iter, Extent{start, end});
        if (!fresh) {
            it->second.firstStartNs = std::min(it->second.firstStartNs, start);
            it->second.lastEndNs = std::max(it->second.lastEndNs, end);
        }
    }
    return out;
}

std::optional<double> meanMs(double sumNs, int n) {
    return n > 0 ? std::optional<double>(sumNs / n / 1e6) : std::nullopt;
}

} // namespace

DdpLoggerFigures ddpLoggerFigures(const QMap<int, results::RankRecord>& rankFiles) {
    DdpLoggerFigures f;
    double computeNs = 0, commNs = 0, overlapNs = 0, hookNs = 0;
    QString hook;
    QStringList unavailable;
    for (auto it = rankFiles.begin(); it != rankFiles.end(); ++it) {
        const results::RankRecord& r = it.value();
        if (!r.hook.empty()) {
            hook = QString::fromStdString(r.hook);
        }
        const results::DdpLoggingRecord& log = r.ddpLogging;
        if (!log.available) {
            unavailable << QString("rank %1: %2")
                               .arg(it.key())
                               .arg(!log.present ? QString("the rank file has no ddp_logging")
                                    : log.reason.empty() ? QString("unavailable")
                                                         : QString::fromStdString(log.reason));
            continue;
        }
        const std::set<std::int64_t> recorded(log.recordedIterationsSampled.begin(),
                                              log.recordedIterationsSampled.end());
        const std::map<int, Extent> extents = hookExtents(r);
        for (const results::DdpSampleRecord& s : log.samples) {
            const int iter = s.iter;
            const auto extent = extents.find(iter);
            if (!recorded.contains(iter) || extent == extents.end()) {
                continue;
            }
            ++f.samples;
            computeNs += double(s.backwardComputeNs);
            commNs += double(s.backwardCommNs);
            overlapNs += double(s.overlapNs);
            hookNs += extent->second.lastEndNs - extent->second.firstStartNs;
        }
    }
    f.backwardComputeMs = meanMs(computeNs, f.samples);
    f.backwardCommMs = meanMs(commNs, f.samples);
    f.overlapMs = meanMs(overlapNs, f.samples);
    if (!unavailable.isEmpty()) {
        f.reason = "not judged: the DDP logger is unavailable (" + unavailable.join("; ") + ")";
        return f;
    }
    if (f.samples == 0) {
        f.reason = "not judged: the DDP logger sampled no iteration the hook recorded (it "
                   "samples iterations 0-9, then every 100th)";
        return f;
    }
    if (spec::sendsNothing(hook.toStdString())) {
        f.reason = "not judged: hook local moves no data, so the logger and the hook time only "
                   "the division of each bucket";
        return f;
    }
    if (hookNs <= 0) {
        f.reason = "not judged: the hook's buckets span no time";
        return f;
    }
    f.ratio = commNs / hookNs;
    if (std::abs(*f.ratio - 1.0) > kAgreementTolerance) {
        f.flagged = true;
        f.reason = QString("the DDP logger's backward communication is %1 % %2 the hook's bucket "
                           "extent over %3 rank-iterations")
                       .arg(std::abs(*f.ratio - 1.0) * 100.0, 0, 'f', 1)
                       .arg(*f.ratio > 1.0 ? "above" : "below")
                       .arg(f.samples);
    }
    return f;
}

} // namespace commprof::analysis
