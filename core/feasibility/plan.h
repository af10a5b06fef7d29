// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A matrix expanded into cells, each with its footprint against the resolved budget: what
// `commprof plan` prints, `commprof run` executes and the designer shows.

#include "feasibility/footprint.h"
#include "feasibility/machine_profile.h"
#include "matrix/matrix.h"

#include <QJsonObject>

#include <memory>
#include <optional>

namespace commprof::feasibility {

// The demand of the ranks one node holds.
struct NodeDemand {
    int ranks = 0;
    double hostBytes = 0;
    double deviceBytes = 0; // per GPU; 0 for a CPU cell
};

struct PlannedCell {
    matrix::Cell cell;
    FootprintEstimate estimate;    // of the busiest node: what decides feasibility
    std::vector<NodeDemand> nodes; // one per node the cell's ranks are placed on
};

struct Plan {
    matrix::Matrix matrix;
    MachineBudget budget;
    Coefficients coefficients;
    std::vector<PlannedCell> cells;
    QString linkRefusal; // why emulated links cannot run here (platform/link_emulation.h)
};

// What the machine allows the matrix's cells (GPUs, emulated links).
matrix::MachineLimits machineLimits(const Plan& plan);

struct PlanOptions {
    QString profilePath;
    BudgetOverrides overrides;
    std::optional<MachineFacts> facts; // what "auto" budgets use; read from this machine when unset
    std::optional<matrix::LauncherKind> launcher; // overrides the matrix's launcher.kind
};

Plan makePlan(const matrix::Matrix& m, const PlanOptions& options); // throws matrix::MatrixError
Plan makePlan(const QString& matrixPath, const PlanOptions& options);
// The plan of `m`, equal to makePlan's, made from `previous` where it can be: `previous` itself
// when nothing a cell depends on changed (the matrix, the budget, the coefficients), else the
// cells of every model whose entry is unchanged taken from it when only entries changed (their
// names and DDP settings kept). The designer replans after every pause in typing; most pauses
// follow an edit of a comment or of one entry. Throws matrix::MatrixError.
std::shared_ptr<const Plan> replan(const matrix::Matrix& m, const PlanOptions& options,
                                   const std::shared_ptr<const Plan>& previous);
QJsonObject toJson(const Plan& plan);

// Each node's share of a cell: "ranks 2+2+1, host 0.71+0.71+0.36 GiB" (", device ..." for a
// GPU cell), first node first.
QString nodeDemandText(const PlannedCell& pc);
// A sweep the budget made smaller: "capped from 16 MiB to 2 MiB to fit the budget"; empty for
// any other cell.
QString sweepCapText(const PlannedCell& pc);

} // namespace commprof::feasibility
