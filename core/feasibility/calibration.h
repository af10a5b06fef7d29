// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Predicted against measured memory for the cells of a results directory, and a refit of the
// per-rank process baseline from them.

#include "feasibility/footprint.h"

#include <QJsonObject>
#include <QSet>
#include <QString>

#include <vector>

namespace commprof::feasibility {

struct CellCalibration {
    QString cellId;
    int worldSize = 0;
    QString layer;
    double predictedHostPerRank = 0; // bytes
    double measuredHostPerRank = 0;  // max VmHWM over ranks
    double predictedDevicePerRank = 0;
    double measuredDevicePerRank = 0; // max device peak over ranks
    std::vector<Term> hostTerms;      // per rank, as predicted
    double hostErrorFraction() const; // (measured - predicted) / predicted
};

struct Calibration {
    std::vector<CellCalibration> cells;
    double baselineBefore = 0; // bytes per rank
    double baselineRefit = 0;  // the smallest baseline that covers every measured cell
    std::vector<QString> stillInfeasibleAfterRefit; // completed cells a refit would reject
};

// Reads every complete cell under DIR: cell.json with status complete, and among
// `completeCells`, the ids the store judged complete (store/ingest.cpp), its rank files.
Calibration calibrate(const QString& resultsDir, const Coefficients& k,
                      const QSet<QString>& completeCells);
QJsonObject toJson(const Calibration& c);

} // namespace commprof::feasibility
