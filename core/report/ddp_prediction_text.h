// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A DDP cell's all-reduce predicted from the sweep (analysis/ddp_prediction.h), in words.

#include "analysis/ddp_prediction.h"

#include <QString>

namespace commprof::report {

// The report's lines: the per-step verdict, where the time went, and each bucket.
QString describe(const analysis::DdpPrediction& d);
// What the measured steps can say of the prediction, in words rather than a verdict. A
// prediction inside the range of the measured steps is not thereby right: where the steps spread
// wider than the prediction is off, the measurement cannot judge it, and this says so with the
// spread; outside the range it missed every measured step.
QString spreadVerdict(const analysis::DdpPrediction& d);

} // namespace commprof::report
