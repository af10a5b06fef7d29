// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The DDP step graph across ranks (`commprof trace ddp`): every rank's iterations as its trace
// shows them (trace/ddp_steps.h), their bucket collectives matched across ranks, and per
// iteration where the step went:
//
//   step = compute + exposed communication + wait for the straggler + optimizer
//
// compute: from the step's start to the last gradient ready (the forward, the backward's
// compute and whatever the script did before them); then what the backward waited for after its
// compute, split into the wait for the last bucket's latest rank and the communication exposed
// beyond it; optimizer: from the backward's end to the step's end.
//
// A collective ends at about the same instant on every rank (nothing leaves the ring until every
// rank has sent), so the rank that launched a bucket last is the one whose collective ran
// shortest, and every other rank waited its own duration minus that one: read without comparing
// clocks across hosts (legacy traces count from each process's own start).

#include "trace/ddp_steps.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <map>
#include <optional>
#include <vector>

namespace commprof::analysis {

// One bucket's collective as every rank ran it: matched by step and sequence number where every
// rank's trace has one, else by step and launch order.
struct MatchedBucket {
    int step = 0;
    int index = 0;
    std::optional<std::int64_t> seq;
    std::map<int, const trace::BucketCollective*> byRank; // the ranks that have it
    bool unmatched = false;                               // some rank lacks it
    std::optional<int> lastRank;  // the rank whose gradients were ready last
    std::map<int, double> waitUs; // per rank, how long it waited for lastRank
};

struct IterationParts {
    int rank = 0;
    int step = 0;
    double stepUs = 0, computeUs = 0, exposedCommUs = 0, stragglerWaitUs = 0, optimizerUs = 0;
};

struct Culprit {
    QString what;      // "rank 1", "gradient 13 of 14 in ready order (fc.weight)"
    double waitUs = 0; // what the other ranks waited for it, in all
    int buckets = 0;   // the buckets it was last at
};

struct DdpStepGraph {
    std::vector<int> ranks;
    std::vector<const trace::DdpRankSteps*> traces; // by ranks[i]
    std::vector<MatchedBucket> buckets;
    std::vector<IterationParts> iterations;
    std::vector<Culprit> culpritRanks, culpritGradients; // the largest first
    QStringList notes;
};

// traces[i] is rank ranks[i]. `parameterNames` (optional, registration order) names the
// gradients: ready order is taken as reverse registration order, as the reducer's rebuilt buckets
// hold them.
DdpStepGraph buildStepGraph(const std::vector<const trace::DdpRankSteps*>& traces,
                            const std::vector<int>& ranks, const QStringList& parameterNames = {});

// "gradient 13 of 14 in ready order (fc.weight)": ready order is reverse registration order,
// and `names` (registration order) names it when it has one per gradient.
QString gradientName(int readyIndex, int gradients, const QStringList& names);

// Its JSON and text: report/ddp_step_graph_text.h.

} // namespace commprof::analysis
