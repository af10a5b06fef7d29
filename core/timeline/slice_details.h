// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the details panel says about one slice and about a measured range, as values: the
// panel only lays them out. Times are display times (see TimelineStack).

#include "rank_matching.h"
#include "slice_ref.h"
#include "timeline_stack.h"

#include <QString>

#include <utility>
#include <vector>

namespace commprof::timeline {

struct PartnerInfo {
    SliceRef slice;
    QString name;
    QString lane;          // "GPU 0 · python3.8 / stream 7"
    bool isDevice = false; // the partner is the kernel (else the launch)
    QString via;           // "ac2g flow", "correlation 1234", or both
    double startUs = 0;
};

struct SliceDetails {
    SliceRef slice;
    int rankNumber = 0;
    QString name;
    QString category;
    QString cls; // compute, communication, ...
    QString lane;
    double startUs = 0;
    double durationUs = 0;
    double selfUs = 0;
    std::int64_t correlation = -1;
    int stream = -1;
    std::vector<PartnerInfo> partners;
};

SliceDetails describeSlice(const TimelineStack& stack, SliceRef slice);

// One rank's figures over a range, as `commprof trace summarize --window` computes them on
// that rank's own clock.
struct RankRange {
    int rankNumber = 0;
    trace::Span window; // on the rank's trace clock
    trace::StepMetrics figures;
};

// [fromUs, toUs] of display time, measured on every rank.
std::vector<RankRange> measureRange(const TimelineStack& stack, double fromUs, double toUs);

} // namespace commprof::timeline
