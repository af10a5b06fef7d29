// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The two instruments of one rank, kept independent (docs/trace-semantics.md, "Two instruments
// must agree"): the comm hook's bucket intervals from the rank file, and the backend's own
// collective work in the trace (gloo:* host spans, or collective kernels on a device). The
// hook's own span in the trace (c10d::allreduce_bucket#N) carries the hook's timestamps and is
// never read here.

#include "trace/intervals.h"
#include "trace/trace_event.h"

#include <optional>
#include <string>
#include <vector>

namespace commprof::analysis {

constexpr double kAgreementTolerance = 0.10;

struct HookBucket {
    int iteration = 0;
    int index = 0;
    double startUs = 0; // CLOCK_MONOTONIC, the clock commprof-rank's trace is written on
    double endUs = 0;
    double bytes = 0;
};

// One bucket's hook interval against the backend work inside it.
struct BucketMatch {
    int iteration = 0;
    int index = 0;
    double bytes = 0;
    double hookUs = 0;
    std::optional<double> backendUs;      // the backend span that starts inside the hook's interval
    std::optional<double> backendStartUs; // its start: ranks of one host share the clock
    // From the hook's launch to the backend span's start: on gloo, the time the bucket waited
    // for one of the process group's worker threads (busy with earlier buckets).
    std::optional<double> queuedUs;
};

struct InstrumentAgreement {
    std::string backendSource; // "gloo:* host spans", "collective kernels", or empty: none
    int steps = 0;             // traced steps the hook also recorded
    double hookUs = 0;    // summed over those steps: per step, the union of the bucket intervals
    double backendUs = 0; // summed over those steps: per step, the union of the backend's work
    std::optional<double> ratio; // backendUs / hookUs
    std::vector<BucketMatch> buckets;
    int bucketsMatched = 0;
    bool flagged = false;
    std::string reason; // why it is flagged, in words
};

// Compares per traced step (ProfilerStep#N against the hook's iteration N). A bucket's backend
// span is the earliest not yet taken that starts inside the bucket's interval (gloo ends its
// span after running its future's callbacks, the hook's completion among them, so the span's end
// lies just past the hook's); that match needs one clock, so it is made only for host spans
// (device kernels are on the device's clock).
InstrumentAgreement compareInstruments(const trace::Trace& trace,
                                       const std::vector<HookBucket>& hook);

// Whether backend / hook is within the tolerance; the verdict and its reason.
void judgeAgreement(InstrumentAgreement& a);

} // namespace commprof::analysis
