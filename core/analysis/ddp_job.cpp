// SPDX-License-Identifier: GPL-3.0-or-later
#include "ddp_job.h"

#include "spec/mapped.h"
#include "trace/trace_error.h"

#include <algorithm>
#include <set>

namespace commprof::analysis {
namespace {

// The job's warnings: each rank's reader warnings with its rank and file, the ranks of the
// world size without a trace, and iteration counts that differ between ranks.
void noteWarnings(DdpJob* job, std::optional<int> worldSize) {
    for (std::size_t i = 0; i < job->steps.size(); ++i) {
        const trace::DdpRankSteps& s = job->steps[i];
        const QString who =
            QString("rank %1 (%2)").arg(job->ranks[i]).arg(QString::fromStdString(s.source));
        for (const std::string& w : s.warnings) {
            job->warnings << who + ": " + QString::fromStdString(w);
        }
        if (s.readInPart) {
            job->incomplete = true;
            job->warnings << who + ": only part of the trace could be read: its iterations after "
                                   "the cut are missing";
        }
    }
    if (worldSize) {
        const std::set<int> present(job->ranks.begin(), job->ranks.end());
        QStringList missing;
        for (int r = 0; r < *worldSize && missing.size() < 20; ++r) {
            if (!present.count(r)) {
                missing << QString::number(r);
            }
        }
        if (!missing.isEmpty()) {
            job->incomplete = true;
            const int absent = *worldSize - int(present.size());
            job->warnings << QString("world size %1, but no trace of rank%2 %3%4: the job's "
                                     "culprits and waits are of the ranks read only")
                                 .arg(*worldSize)
                                 .arg(absent == 1 ? "" : "s")
                                 .arg(missing.join(", "))
                                 .arg(absent > missing.size() ? QString(" (%1 in all)").arg(absent)
                                                              : QString());
        }
    }
    const auto most = std::ranges::max_element(
        job->steps, {}, [](const trace::DdpRankSteps& s) { return s.iterations.size(); });
    for (std::size_t i = 0; i < job->steps.size(); ++i) {
        const trace::DdpRankSteps& s = job->steps[i];
        if (s.iterations.size() != most->iterations.size()) {
            job->warnings << QString("rank %1 (%2) has %3 iterations where rank %4 has %5")
                                 .arg(job->ranks[i])
                                 .arg(QString::fromStdString(s.source))
                                 .arg(s.iterations.size())
                                 .arg(job->ranks[std::size_t(most - job->steps.begin())])
                                 .arg(most->iterations.size());
        }
    }
}

} // namespace

std::vector<const trace::DdpRankSteps*> DdpJob::pointers() const {
    return spec::mapped<std::vector<const trace::DdpRankSteps*>>(
        steps, [](const trace::DdpRankSteps& s) { return &s; });
}

DdpStepGraph DdpJob::graph() const {
    return buildStepGraph(pointers(), ranks, params ? params->names() : QStringList{});
}

DdpJob ddpJobOf(std::vector<trace::DdpRankSteps> steps, const std::vector<int>& rankNumbers) {
    DdpJob job;
    job.steps = std::move(steps);
    std::set<int> seen;
    std::optional<int> worldSize;
    for (std::size_t i = 0; i < job.steps.size(); ++i) {
        const trace::DdpRankSteps& s = job.steps[i];
        const trace::DdpRankSteps& first = job.steps.front();
        const std::size_t g0 = first.iterations.front().gradientReadyUs.size();
        const std::size_t g = s.iterations.front().gradientReadyUs.size();
        if (g != g0 || s.worldSize != first.worldSize) {
            throw trace::TraceError(
                s.source + " and " + first.source + " are not ranks of one job: " +
                (g != g0 ? std::to_string(g) + " gradients a backward against " + std::to_string(g0)
                         : std::string("their world sizes differ")));
        }
        const int rank = i < rankNumbers.size() ? rankNumbers[i] : s.rank.value_or(int(i));
        if (!seen.insert(rank).second) {
            throw trace::TraceError(s.source + ": rank " + std::to_string(rank) +
                                    " given twice: traces of one job, one per rank, are expected");
        }
        worldSize = s.worldSize;
        if (rank < 0 || (worldSize && rank >= *worldSize)) {
            throw trace::TraceError(
                s.source + ": rank " + std::to_string(rank) +
                (worldSize ? " is outside the job's world size " + std::to_string(*worldSize)
                           : std::string(" is negative")) +
                ": not a rank of the job");
        }
        job.ranks.push_back(rank);
    }
    noteWarnings(&job, worldSize);
    return job;
}

} // namespace commprof::analysis
