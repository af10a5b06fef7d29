// SPDX-License-Identifier: GPL-3.0-or-later
#include "calibration.h"

#include "results/cell_files.h"
#include "results/json_kind.h"
#include "spec/units.h"

#include <QDir>
#include <QJsonArray>

#include <algorithm>

namespace commprof::feasibility {
double CellCalibration::hostErrorFraction() const {
    return predictedHostPerRank > 0
               ? (measuredHostPerRank - predictedHostPerRank) / predictedHostPerRank
               : 0.0;
}

Calibration calibrate(const QString& resultsDir, const Coefficients& k,
                      const QSet<QString>& completeCells) {
    Calibration out;
    out.baselineBefore = k["process_baseline_mib"] * spec::kMiB;
    const QDir cells(QDir(resultsDir).filePath("cells"));
    double needed = 0;
    std::vector<double> hostBudgets; // each of out.cells' recorded host budget
    for (const QString& id : cells.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
        // Complete by the one judge, ingest's; read through the one checked reader.
        if (!completeCells.contains(id)) {
            continue;
        }
        const results::CellFiles files = results::readCellDir(cells.filePath(id));
        const QJsonObject& cell = files.cell;
        if (cell["status"].toString() != "complete") {
            continue;
        }
        CellCalibration c;
        c.cellId = id;
        c.worldSize = cell["world_size"].toInt();
        c.layer = cell["layer"].toString();
        if (c.worldSize < 1) {
            continue;
        }
        for (const QJsonValue tv : cell["terms"].toArray()) {
            const QJsonObject t = tv.toObject();
            const double perRank = t["bytes"].toDouble() / c.worldSize;
            if (t["pool"].toString() == "host") {
                c.predictedHostPerRank += perRank;
                c.hostTerms.push_back(
                    {t["name"].toString(), Pool::Host, perRank, t["basis"].toString()});
            } else {
                c.predictedDevicePerRank += perRank;
            }
        }
        const auto measured = [&c](const auto& ranks) {
            for (const auto& rank : ranks) {
                c.measuredHostPerRank = std::max(c.measuredHostPerRank, rank.peakHostBytes);
                c.measuredDevicePerRank = std::max(c.measuredDevicePerRank, rank.peakDeviceBytes);
            }
        };
        if (files.isSweep()) {
            measured(files.sweeps);
        } else {
            measured(files.records);
        }
        // The baseline that would make this cell's prediction cover what it used.
        const double otherTerms = c.predictedHostPerRank - out.baselineBefore;
        needed = std::max(needed, c.measuredHostPerRank - otherTerms);
        hostBudgets.push_back(
            cell["pools"].toObject()["host"].toObject()["budget_bytes"].toDouble());
        out.cells.push_back(c);
    }
    out.baselineRefit = out.cells.empty() ? out.baselineBefore : needed;
    // A refit must not reject a cell that ran: check each against its recorded host budget.
    for (std::size_t i = 0; i < out.cells.size(); ++i) {
        const CellCalibration& c = out.cells[i];
        const double budget = hostBudgets[i];
        const double refit =
            (c.predictedHostPerRank - out.baselineBefore + out.baselineRefit) * c.worldSize;
        if (budget > 0 && refit > budget) {
            out.stillInfeasibleAfterRefit.push_back(c.cellId);
        }
    }
    return out;
}

QJsonObject toJson(const Calibration& c) {
    const QJsonArray cells = results::jsonArray(c.cells, [](const CellCalibration& cell) {
        const QJsonArray terms = results::jsonArray(cell.hostTerms, [](const auto& t) {
            return QJsonObject{{"name", t.name}, {"bytes_per_rank", t.bytes}};
        });
        return QJsonObject{{"id", cell.cellId},
                           {"world_size", cell.worldSize},
                           {"layer", cell.layer},
                           {"predicted_host_bytes_per_rank", cell.predictedHostPerRank},
                           {"measured_host_bytes_per_rank", cell.measuredHostPerRank},
                           {"host_error_fraction", cell.hostErrorFraction()},
                           {"predicted_device_bytes_per_rank", cell.predictedDevicePerRank},
                           {"measured_device_bytes_per_rank", cell.measuredDevicePerRank},
                           {"host_terms", terms}};
    });
    return QJsonObject{{"cells", cells},
                       {"process_baseline_mib_before", c.baselineBefore / spec::kMiB},
                       {"process_baseline_mib_refit", c.baselineRefit / spec::kMiB},
                       {"completed_cells_infeasible_after_refit",
                        results::jsonArray(c.stillInfeasibleAfterRefit)}};
}

} // namespace commprof::feasibility
