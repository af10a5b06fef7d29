// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The same operation on every rank, to show skew: the instances of one collective (or of any
// slice) that the ranks ran together. A collective is matched by its place (trace/
// collective_places.h): its process group and sequence number ("Seq", PyTorch 2.4+), else its
// step and its order among its group's collectives in that step. Any other slice by its name
// and its occurrence within its step: the k-th `c10d::allreduce_bucket#3` of rank 0's step 8 is
// the k-th of rank 2's step 8. A rank without it there is "unmatched", never paired with a
// neighbouring step's instance (which would show a step's length as skew).

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
    QString matchedBy; // "process group 0, Seq 17", "step 8, collective 2 of process group ..."
    std::vector<int> unmatchedRanks; // indices of the ranks that have no instance at that place
};

MatchedSlices matchAcrossRanks(const TimelineStack& stack, SliceRef slice);

} // namespace commprof::timeline
