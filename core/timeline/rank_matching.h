// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The same operation on every rank, to show skew: the instances of one collective (or of any
// slice) that the ranks ran together. A collective whose arguments carry a process group and
// a sequence number ("Seq", PyTorch 2.4+) is matched by those; anything else by its name and
// its occurrence: the k-th `c10d::allreduce_bucket#3` of rank 0 is the k-th of rank 2.

#include "slice_ref.h"
#include "timeline_stack.h"

#include <QString>

#include <vector>

namespace commprof::timeline {

struct MatchedSlices {
    std::vector<SliceRef> slices; // one per rank that has it, in rank order
    std::vector<double> startsUs; // display times, same order
    double skewUs = 0;            // latest start minus earliest
    int lastRank = -1;            // index of the rank that started last
    int firstRank = -1;
    QString matchedBy; // "process group 0, Seq 17" or "name and occurrence 4"
};

MatchedSlices matchAcrossRanks(const TimelineStack& stack, SliceRef slice);

} // namespace commprof::timeline
