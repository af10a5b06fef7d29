// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The time ruler over a TimeAxis: major ticks at 1, 2 or 5 times a power of ten nanoseconds,
// the smallest such step that keeps labels a given number of pixels apart, with one unit for
// the whole ruler (ns, µs, ms or s) chosen from the step. Labels are times relative to an
// origin (the trace start, or a selected step). When they would need more than four digits
// before the point, the ruler shows one full-precision base once and labels the ticks "+Δ"
// from it, as Nsight Systems and hotspot do.

#include "time_axis.h"

#include <QString>

#include <vector>

namespace commprof::timeline {

enum class TimeUnit { Ns, Us, Ms, S };

const char* unitSuffix(TimeUnit unit);
// Microseconds in one unit: 1e-3, 1, 1e3, 1e6.
double unitInUs(TimeUnit unit);

struct RulerTick {
    double us = 0; // on the axis
    bool major = false;
    QString label; // major ticks only
};

struct Ruler {
    double stepUs = 0;      // between major ticks
    double minorStepUs = 0; // between minor ticks
    TimeUnit unit = TimeUnit::Us;
    int decimals = 0;     // of the tick labels, in `unit`
    bool hasBase = false; // labels are "+Δ" from baseUs
    double baseUs = 0;    // on the axis
    QString baseLabel;    // baseUs - origin, in full precision: "5.000 000 1 s"
    std::vector<RulerTick> ticks;
};

// minLabelSpacingPx: the widest label plus a gap.
Ruler makeRuler(const TimeAxis& axis, double originUs, int minLabelSpacingPx);

// A duration or time offset with four significant digits in the largest unit that keeps it at
// least 1: "523 ns", "1.253 ms", "12.50 s". Zero is "0 ns"; negative values keep their sign.
QString formatDuration(double us);
// An offset in `unit` with `decimals`, digits after the point grouped by three.
QString formatInUnit(double us, TimeUnit unit, int decimals);

} // namespace commprof::timeline
