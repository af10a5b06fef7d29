// SPDX-License-Identifier: GPL-3.0-or-later
#include "ddp_prediction_text.h"

namespace commprof::report {
namespace {

QString ms(double us) {
    return QString::number(us / 1000.0, 'f', 3);
}

} // namespace

QString spreadVerdict(const analysis::DdpPrediction& d) {
    const double off = d.offBy() * 100.0;
    if (!d.withinRange() || d.measuredUsPerStep <= 0) {
        return QString("off by %1 %, outside every measured step").arg(off, 0, 'f', 1);
    }
    // The range as percentages of the median step, as the error is.
    const double lo = (d.measuredMinUs / d.measuredUsPerStep - 1.0) * 100.0;
    const double hi = (d.measuredMaxUs / d.measuredUsPerStep - 1.0) * 100.0;
    return QString("off by %1 %; the steps themselves spread %2 %..+%3 % about their median, so "
                   "the measurement cannot judge the prediction")
        .arg(off, 0, 'f', 1)
        .arg(lo, 0, 'f', 0)
        .arg(hi, 0, 'f', 0);
}

QString describe(const analysis::DdpPrediction& d) {
    QString out =
        QString("DDP all-reduce per step over %1 traced step(s): predicted %2 ms from the "
                "sweep's typical times and the CPU share each bucket had, measured %3 ms (the "
                "collective's own time: the span of the rank that arrived last), range %4..%5 "
                "ms: %6\n")
            .arg(d.steps)
            .arg(ms(d.predictedUsPerStep), ms(d.measuredUsPerStep), ms(d.measuredMinUs),
                 ms(d.measuredMaxUs), spreadVerdict(d));
    out += d.hostCpus > 0
               ? QString("  the sweep alone took %1 ms; the buckets shared %2 core(s) with the "
                         "ranks' compute (processor sharing: cores / runnable threads)\n")
                     .arg(ms(d.sweepUsPerStep))
                     .arg(d.hostCpus)
               : QString("  the host's CPU count is unknown: no sharing of the cores is "
                         "predicted\n");
    if (d.fitUsPerStep) {
        out += QString("  the fit's line (the sweep's fastest repetitions) gives %1 ms: the best "
                       "case\n")
                   .arg(ms(*d.fitUsPerStep));
    }
    out += QString("  besides: %1 ms waiting for the last rank to arrive, %2 ms queued behind "
                   "earlier buckets (the hook's launch to the backend span's start); each "
                   "rank's backend spans sum to %3 ms\n")
               .arg(ms(d.waitUsPerStep), ms(d.queuedUsPerStep), ms(d.backendUsPerStep));
    for (const analysis::BucketPrediction& b : d.buckets) {
        out += QString("  bucket %1, %2 B: sweep %3 us at a CPU share of %4 %: predicted %5 "
                       "us, measured %6 us, waited %7 us, queued %8 us: DDP reached %9 % of the "
                       "sweep's bandwidth at this size\n")
                   .arg(b.index)
                   .arg(b.bytes, 0, 'f', 0)
                   .arg(b.sweepUs, 0, 'f', 1)
                   .arg(b.cpuShare * 100.0, 0, 'f', 0)
                   .arg(b.predictedUs, 0, 'f', 1)
                   .arg(b.measuredUs, 0, 'f', 1)
                   .arg(b.waitUs, 0, 'f', 1)
                   .arg(b.queuedUs, 0, 'f', 1)
                   .arg(b.sweepFraction() * 100.0, 0, 'f', 1);
    }
    return out;
}

} // namespace commprof::report
