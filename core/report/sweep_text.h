// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The collective sweep's figures as `sweep summarize` and `cells` print them, in JSON
// (docs/formats.md) and in text: per size the slowest rank's fastest and typical time, algbw and
// busbw; the fit, or why it was refused; and a DDP cell's prediction from the sweep.

#include "analysis/collective_sweep.h"
#include "analysis/ddp_prediction.h"
#include "store/sqlite_db.h"

#include <QJsonObject>
#include <QString>

namespace commprof::report {

QJsonObject toJson(const analysis::SweepSeries& s, const analysis::LinearFit& fit);
QJsonObject toJson(const analysis::DdpPrediction& d);
// The report's lines: the per-step verdict, where the time went, and each bucket.
QString describe(const analysis::DdpPrediction& d);
// What the measured steps can say of the prediction, in words rather than a verdict. A
// prediction inside the range of the measured steps is not thereby right: where the steps spread
// wider than the prediction is off, the measurement cannot judge it, and this says so with the
// spread; outside the range it missed every measured step.
QString spreadVerdict(const analysis::DdpPrediction& d);

// cells --json's figures of the store's sweep tables for one cell: a sweep's series with their
// fits ("sweep"), or a DDP cell's prediction ("prediction", "prediction_note", "sweep_cell").
void addSweepFigures(store::Database& db, const QString& cellKey, bool sweep, QJsonObject& cell);

} // namespace commprof::report
