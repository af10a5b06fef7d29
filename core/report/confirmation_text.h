// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// `commprof confirm`'s text output, and the workbench's line when a confirmation ends: the
// record of analysis/confirmation.h in sentences.

#include "analysis/confirmation.h"
#include "inputs/confirmation_json.h"

#include <QString>

namespace commprof::report {

inline QString describe(const analysis::Confirmation& c) {
    const auto setting = [](const analysis::Setting& s) {
        return QString("bucket_cap_mb %1, hook %2").arg(s.bucketCapMb).arg(s.hook);
    };
    QString out = QString("recorded (A): %1\ncandidate (B): %2\n")
                      .arg(setting(c.recorded), setting(c.candidate));
    if (c.measured) {
        const analysis::PairedDifference& m = *c.measured;
        out += QString("measured: B - A = %1 ms a step, %2% interval [%3, %4] ms over %5 "
                       "alternations (A %6 ms)\n")
                   .arg(m.meanMs, 0, 'f', 2)
                   .arg(m.level * 100, 0, 'f', 0)
                   .arg(m.lowMs, 0, 'f', 2)
                   .arg(m.highMs, 0, 'f', 2)
                   .arg(m.pairs)
                   .arg(inputs::toJson(c)["recorded"].toObject()["step_ms"].toDouble(), 0, 'f', 2);
    }
    if (c.predicted) {
        out += QString("predicted by trace whatif: %1 ms, interval [%2, %3] ms\n")
                   .arg(c.predicted->differenceMs, 0, 'f', 2)
                   .arg(c.predicted->lowMs, 0, 'f', 2)
                   .arg(c.predicted->highMs, 0, 'f', 2);
    } else {
        out += "predicted: none (" + c.predictionMissing + ")\n";
    }
    if (const auto held = c.predictionHeld()) {
        out += *held ? "the prediction held: the measured difference is inside its interval\n"
                     : "the prediction did not hold: the measured difference is outside its "
                       "interval\n";
    }
    return out.trimmed();
}

} // namespace commprof::report
