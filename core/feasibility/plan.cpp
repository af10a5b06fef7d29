// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan.h"

#include "feasibility/cell_json.h"
#include "feasibility/plan_stream.h"
#include "matrix/axes.h"
#include "matrix/cell_stream.h"
#include "platform/link_emulation.h"
#include "results/json_kind.h"
#include "spec/units.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>
#include <cmath>

namespace commprof::feasibility {

namespace {

// Every node's demand, and the busiest node's estimate against the per-node budget.
PlannedCell placeNodes(matrix::Cell cell, const Plan& plan) {
    PlannedCell pc{std::move(cell), {}, {}};
    const matrix::Cell& placed = pc.cell;
    const std::vector<int> perNode = matrix::ranksPerNode(plan.matrix.launcher, placed.worldSize);
    pc.nodes.reserve(perNode.size());
    int busiest = 0;
    for (const int ranks : perNode) {
        // A 100k-cell plan in the designer: a copy of the cell only where a node holds part of it.
        std::optional<matrix::Cell> part;
        if (ranks != placed.worldSize) {
            part = placed;
            part->worldSize = ranks;
        }
        FootprintEstimate e = estimate(part ? *part : placed, plan.coefficients, plan.budget);
        pc.nodes.push_back({ranks, e.host.total(), e.device.used ? e.device.total() : 0.0});
        if (ranks > busiest) {
            busiest = ranks;
            pc.estimate = std::move(e);
        }
    }
    if (plan.budget.perNode && !pc.estimate.feasible) {
        pc.estimate.reason +=
            QString(" on a node with %1 of the %2 rank(s)").arg(busiest).arg(placed.worldSize);
    }
    return pc;
}

// A sweep that would not fit stops at the largest power of two that does (its sizes double
// from 8 B, so that is the largest size it runs anyway); one that does not fit even at 8 B is
// infeasible with the numbers of its full size.
PlannedCell placeCell(matrix::Cell cell, const Plan& plan) {
    if (!cell.isSweep()) {
        return placeNodes(std::move(cell), plan);
    }
    PlannedCell pc = placeNodes(cell, plan);
    if (pc.estimate.feasible) {
        return pc;
    }
    matrix::Cell capped = cell;
    capped.sweepCappedFrom = cell.sweepMaxBytes;
    for (double bytes = std::exp2(std::floor(std::log2(cell.sweepMaxBytes))); bytes >= 8;
         bytes /= 2) {
        capped.sweepMaxBytes = bytes;
        if (PlannedCell smaller = placeNodes(capped, plan); smaller.estimate.feasible) {
            return smaller;
        }
    }
    return pc;
}

void placeCells(Plan& plan) {
    // Growing a vector of 100k cells moves each of them about twice, which costs more than
    // placing it. Only an exact count is reserved: exclusions or a matrix over the limit
    // (refused while expanding) would reserve for cells that never come.
    double count = 0;
    for (const matrix::ModelSpec& model : plan.matrix.models) {
        count += matrix::combinations(matrix::axesOf(plan.matrix, model));
    }
    if (plan.matrix.excludes.empty() && count <= double(matrix::defaultMaxCells())) {
        plan.cells.reserve(std::size_t(count));
    }
    forEachPlannedCell(plan, [&plan](PlannedCell& pc) { plan.cells.push_back(std::move(pc)); });
}

// The same axes, budget and coefficients, and models of the same names, kinds and DDP settings
// in the same order: then every model has the axes it had (so the cell count, which the earlier
// plan passed, is the same), the settings in ids are the same (a sweep's lists count for none),
// and a model's cells depend on its entry alone. (Names are unique: the matrix refuses a name
// listed twice, so the earlier plan's cells are told apart by model name.)
bool sameShape(const Plan& a, const Plan& b) {
    const auto sameModel = [](const matrix::ModelSpec& x, const matrix::ModelSpec& y) {
        return x.name == y.name && x.kind == y.kind && x.knobs == y.knobs;
    };
    if (a.budget != b.budget || a.coefficients != b.coefficients ||
        !std::ranges::equal(a.matrix.models, b.matrix.models, sameModel)) {
        return false;
    }
    matrix::Matrix restA = a.matrix;
    matrix::Matrix restB = b.matrix;
    restA.models.clear();
    restB.models.clear();
    return restA == restB;
}

// `plan`'s cells, those of a model whose entry did not change taken from `previous`.
void placeChangedModels(Plan& plan, const Plan& previous) {
    plan.cells.reserve(previous.cells.size());
    std::size_t at = 0; // previous's cells come model by model, in the matrix's order
    for (std::size_t i = 0; i < plan.matrix.models.size(); ++i) {
        const std::size_t from = at;
        while (at < previous.cells.size() &&
               previous.cells[at].cell.model.name == previous.matrix.models[i].name) {
            ++at;
        }
        if (previous.matrix.models[i] == plan.matrix.models[i]) {
            plan.cells.insert(plan.cells.end(), previous.cells.begin() + std::ptrdiff_t(from),
                              previous.cells.begin() + std::ptrdiff_t(at));
            continue;
        }
        matrix::forEachCellOfModel(plan.matrix, i, machineLimits(plan), [&](matrix::Cell& cell) {
            plan.cells.push_back(placeCell(std::move(cell), plan));
        });
    }
}

} // namespace

Plan planWithoutCells(const matrix::Matrix& m, const PlanOptions& options) {
    Plan plan;
    plan.matrix = m;
    if (options.launcher) {
        plan.matrix.launcher.kind = *options.launcher;
    }
    std::optional<MachineProfile> profile;
    if (!options.profilePath.isEmpty()) {
        profile = loadProfile(options.profilePath);
        plan.coefficients = profile->coefficients;
    }
    std::optional<MachineFacts> facts = options.facts;
    if (plan.matrix.launcher.kind == matrix::LauncherKind::Slurm && !(facts && facts->slurm)) {
        // Budgets per node, from the nodes a run would use.
        if (!facts) {
            facts = currentMachine();
        }
        facts->slurm = platform::querySlurmCluster(plan.matrix.launcher.partition,
                                                   QProcessEnvironment::systemEnvironment());
    }
    plan.budget =
        resolveBudget(plan.matrix, profile ? &*profile : nullptr, options.overrides, facts);
    plan.linkRefusal = platform::linkEmulation().refusal;
    return plan;
}

matrix::MachineLimits machineLimits(const Plan& plan) {
    return {.gpus = plan.budget.gpus, .linkRefusal = plan.linkRefusal};
}

void forEachPlannedCell(const Plan& plan, const std::function<void(PlannedCell&)>& visit) {
    matrix::forEachCell(plan.matrix, machineLimits(plan), [&](matrix::Cell& cell) {
        PlannedCell pc = placeCell(std::move(cell), plan);
        visit(pc);
    });
}

Plan makePlan(const matrix::Matrix& m, const PlanOptions& options) {
    Plan plan = planWithoutCells(m, options);
    placeCells(plan);
    return plan;
}

std::shared_ptr<const Plan> replan(const matrix::Matrix& m, const PlanOptions& options,
                                   const std::shared_ptr<const Plan>& previous) {
    Plan plan = planWithoutCells(m, options);
    if (previous && previous->matrix == plan.matrix && previous->budget == plan.budget &&
        previous->coefficients == plan.coefficients) {
        return previous;
    }
    if (previous && sameShape(*previous, plan)) {
        placeChangedModels(plan, *previous);
    } else {
        placeCells(plan);
    }
    return std::make_shared<const Plan>(std::move(plan));
}

Plan makePlan(const QString& matrixPath, const PlanOptions& options) {
    return makePlan(matrix::loadMatrix(matrixPath), options);
}

QJsonObject toJson(const PlannedCell& pc) {
    QJsonObject cell = matrix::cellJson(pc.cell, pc.estimate);
    cell["nodes"] = results::jsonArray(pc.nodes, [](const NodeDemand& n) {
        return QJsonObject{{"ranks", n.ranks},
                           {"host_demand_bytes", n.hostBytes},
                           {"device_demand_bytes", n.deviceBytes}};
    });
    return cell;
}

QJsonObject toJson(const Plan& plan) {
    const QJsonArray cells =
        results::jsonArray(plan.cells, [](const PlannedCell& pc) { return toJson(pc); });
    const QJsonArray coefficients =
        results::jsonArray(plan.coefficients.table(), [](const auto& c) {
            return QJsonObject{
                {"key", c.key}, {"value", c.value}, {"unit", c.unit}, {"source", c.source}};
        });
    return QJsonObject{
        {"matrix", plan.matrix.name},
        {"file", plan.matrix.file},
        {"budget", QJsonObject{{"host_bytes", plan.budget.hostBytes},
                               {"host_source", plan.budget.hostSource},
                               {"device_bytes", plan.budget.deviceBytes},
                               {"device_source", plan.budget.deviceSource},
                               {"gpus", plan.budget.gpus},
                               {"per", plan.budget.perNode ? "node" : "machine"},
                               {"cpus_per_node", plan.budget.cpusPerNode}}},
        {"launcher", matrix::toJson(plan.matrix.launcher)},
        {"coefficients", coefficients},
        {"cells", cells},
    };
}

void writeJson(const Plan& plan, const std::function<void(const QByteArray&)>& write) {
    // The document toJson makes, byte for byte: its text without cells, split where the empty
    // array is, with each cell indented as that array's element would be.
    const QByteArray whole = QJsonDocument(toJson(plan)).toJson(QJsonDocument::Indented);
    const QByteArray open = "\"cells\": [";
    const qsizetype at = whole.indexOf(open + "\n    ]");
    if (!plan.cells.empty() || at < 0) {
        write(whole); // cells already planned, or a layout this splice does not know
        return;
    }
    write(whole.left(at + open.size()));
    bool first = true;
    forEachPlannedCell(plan, [&](const PlannedCell& pc) {
        QByteArray text = QJsonDocument(toJson(pc)).toJson(QJsonDocument::Indented);
        text.chop(1); // its final newline
        text.replace("\n", "\n        ");
        write((first ? "\n        " : ",\n        ") + text);
        first = false;
    });
    write(whole.mid(at + open.size()));
}

QString sweepCapText(const PlannedCell& pc) {
    if (!pc.cell.isSweep() || !pc.cell.sweepCappedFrom) {
        return {};
    }
    const auto mib = [](double b) { return QString::number(b / spec::kMiB, 'g', 6); };
    return QString("capped from %1 MiB to %2 MiB to fit the budget")
        .arg(mib(*pc.cell.sweepCappedFrom), mib(pc.cell.sweepMaxBytes));
}

QString nodeDemandText(const PlannedCell& pc) {
    QStringList ranks, host, device;
    for (const NodeDemand& n : pc.nodes) {
        ranks << QString::number(n.ranks);
        host << QString::number(n.hostBytes / spec::kGiB, 'f', 2);
        device << QString::number(n.deviceBytes / spec::kGiB, 'f', 2);
    }
    return QString("ranks %1, host %2 GiB%3")
        .arg(ranks.join('+'), host.join('+'),
             pc.estimate.device.used ? ", device " + device.join('+') + " GiB" : QString());
}

} // namespace commprof::feasibility
