// SPDX-License-Identifier: GPL-3.0-or-later
#include "ready_times.h"

#include "trace/statistics.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace commprof::analysis {
namespace {

struct RecordedBucket {
    int nparams = 0;
    double bytes = 0;
    double launchUs = 0; // from the backward's start
};

struct RecordedIteration {
    std::vector<RecordedBucket> buckets; // by index
    double exposedUs = 0;                // the last completion after the last launch
};

// Per recorded iteration of one rank file, its buckets by index, launch times from the
// backward's start; iterations whose buckets are not all there are left out.
std::map<int, RecordedIteration> recordedIterations(const results::RankRecord& rank) {
    std::map<int, double> backwardMs;
    for (const results::IterationRecord& it : rank.iterations) {
        backwardMs[it.iter] = it.backwardMs;
    }
    std::map<int, std::map<int, const results::BucketRecord*>> byIter;
    for (const results::BucketRecord& b : rank.buckets) {
        byIter[b.iter][b.index] = &b;
    }
    std::map<int, RecordedIteration> out;
    for (const auto& [iter, buckets] : byIter) {
        if (!backwardMs.count(iter) || buckets.rbegin()->first != int(buckets.size()) - 1) {
            continue;
        }
        double lastEndNs = 0, lastStartNs = 0;
        for (const auto& [index, b] : buckets) {
            lastEndNs = std::max(lastEndNs, double(b->endNs));
            lastStartNs = std::max(lastStartNs, double(b->startNs));
        }
        const double backwardStartNs = lastEndNs - backwardMs[iter] * 1e6;
        RecordedIteration& row = out[iter];
        row.exposedUs = std::max(0.0, (lastEndNs - lastStartNs) / 1e3);
        for (const auto& [index, b] : buckets) {
            row.buckets.push_back(
                {int(b->nparams), double(b->bytes), (double(b->startNs) - backwardStartNs) / 1e3});
        }
    }
    return out;
}

double medianOf(const std::vector<double>& v) {
    return trace::median(v).value_or(0.0);
}

} // namespace

std::optional<StepProfile> profileFromRankFiles(const QString& cellId,
                                                const QMap<int, results::RankRecord>& ranks,
                                                QString* why) {
    const auto fail = [&](const QString& reason) -> std::optional<StepProfile> {
        if (why) {
            *why = cellId + ": " + reason;
        }
        return std::nullopt;
    };
    if (ranks.isEmpty()) {
        return fail("no rank files");
    }
    // Reverse registration order: the order the rebuilt buckets hold the parameters in.
    std::vector<double> bytes;
    std::vector<std::vector<double>> shapes;
    const std::vector<results::ParameterRecord>& params = ranks.first().parameters;
    for (auto p = params.rbegin(); p != params.rend(); ++p) {
        bytes.push_back(p->bytes);
        shapes.push_back(p->shape);
    }
    std::vector<RecordedBucket> layout; // the first recorded iteration's buckets
    std::map<std::size_t, std::vector<double>> launches;
    std::vector<double> forward, optimizer, exposed;
    int samples = 0;
    for (const results::RankRecord& rank : ranks) {
        for (const results::IterationRecord* it : rank.recorded()) {
            forward.push_back(it->forwardMs * 1e3);
            optimizer.push_back(it->optimizerMs * 1e3);
        }
        for (const auto& [iter, recorded] : recordedIterations(rank)) {
            const std::vector<RecordedBucket>& buckets = recorded.buckets;
            if (layout.empty()) {
                layout = buckets;
            }
            if (buckets.size() != layout.size()) {
                continue; // a rebuild changed the buckets: not the layout the times describe
            }
            for (std::size_t k = 0; k < buckets.size(); ++k) {
                launches[k].push_back(buckets[k].launchUs);
            }
            exposed.push_back(recorded.exposedUs);
            ++samples;
        }
    }
    if (layout.empty()) {
        return fail("no recorded iteration with all its buckets");
    }
    StepProfile r;
    r.source = cellId;
    r.samples = samples;
    r.forwardUs = medianOf(forward);
    r.optimizerUs = medianOf(optimizer);
    r.exposedUs = medianOf(exposed);
    std::size_t next = 0;
    double previousLaunch = 0;
    for (std::size_t k = 0; k < layout.size(); ++k) {
        const RecordedBucket& b = layout[k];
        if (next + std::size_t(b.nparams) > bytes.size()) {
            return fail("its buckets hold more parameters than the model has");
        }
        const auto from = bytes.begin() + long(next);
        const double inBucket = std::accumulate(from, from + b.nparams, 0.0);
        if (inBucket != b.bytes) {
            return fail(QString("bucket %1's %2 bytes are not its parameters' in reverse "
                                "registration order (%3): the ready order is unknown")
                            .arg(k)
                            .arg(b.bytes, 0, 'f', 0)
                            .arg(inBucket, 0, 'f', 0));
        }
        // The reducer launches in order, so a median launch never precedes the one before.
        const double launch = std::max(previousLaunch, medianOf(launches[k]));
        double cumulative = 0;
        for (std::size_t j = next; j < next + std::size_t(b.nparams); ++j) {
            cumulative += bytes[j];
            const double share = inBucket > 0 ? cumulative / inBucket : 1.0;
            r.params.push_back(
                {bytes[j], previousLaunch + share * (launch - previousLaunch), shapes[j]});
        }
        next += std::size_t(b.nparams);
        previousLaunch = launch;
    }
    if (next != bytes.size()) {
        return fail(QString("its buckets hold %1 of the model's %2 parameters")
                        .arg(next)
                        .arg(bytes.size()));
    }
    r.computeEndUs = previousLaunch;
    return r;
}

std::vector<double> recordedStepsMs(const QMap<int, results::RankRecord>& ranks) {
    std::vector<double> steps;
    if (ranks.contains(0)) {
        for (const results::IterationRecord* it : ranks[0].recorded()) {
            steps.push_back(it->stepMs);
        }
    }
    return steps;
}

std::optional<double> measuredStepMs(const QMap<int, results::RankRecord>& ranks) {
    return trace::median(recordedStepsMs(ranks)); // none without rank 0's steps
}

} // namespace commprof::analysis
