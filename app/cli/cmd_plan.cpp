// SPDX-License-Identifier: GPL-3.0-or-later
// commprof plan: a matrix's cells, each with its host and device demand against the budget.

#include "cli_common.h"

#include "feasibility/plan.h"

namespace commprof::cli {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kMaxBudgetGib = 1.0e6; // as a matrix's budget section allows
constexpr int kMaxGpus = 1024;

// A budget in GiB given with `flag`, as a matrix's budget section allows it; false for a value
// that is not one.
bool readBudget(const Args& args, const char* flag, std::optional<double>& out) {
    if (!args.has(flag)) {
        return true;
    }
    bool ok = false;
    const double v = args.value(flag).toDouble(&ok);
    if (!ok || !(v > 0) || v > kMaxBudgetGib) {
        return false;
    }
    out = v;
    return true;
}

} // namespace

int planCommand(const Args& args) {
    const QString path = args.operands().first();
    const bool json = args.has("--json");
    feasibility::PlanOptions options;
    options.profilePath = args.value("--profile");
    options.launcher = launcherOf(args);
    for (const auto& [flag, budget] :
         {std::pair{"--host-budget-gib", &options.overrides.hostGib},
          std::pair{"--device-budget-gib", &options.overrides.deviceGib}}) {
        if (!readBudget(args, flag, *budget)) {
            return args.usageError(QString("%1: expected above 0 up to %2 GiB, got '%3'")
                                       .arg(flag)
                                       .arg(kMaxBudgetGib)
                                       .arg(args.value(flag)));
        }
    }
    if (args.has("--gpus")) {
        bool ok = false;
        const int n = args.value("--gpus").toInt(&ok);
        if (!ok || n < 0 || n > kMaxGpus) {
            return args.usageError(QString("--gpus: expected 0..%1, got '%2'")
                                       .arg(kMaxGpus)
                                       .arg(args.value("--gpus")));
        }
        options.overrides.gpus = n;
    }
    try {
        const feasibility::Plan plan = feasibility::makePlan(path, options);
        if (json) {
            printJson(feasibility::toJson(plan));
            return Ok;
        }
        const QString per = plan.budget.perNode ? " per node" : "";
        QString text =
            QString(
                "%1: %2 cells; host budget %3 GiB%8 (%4), device budget %5 GiB (%6), %7 GPU(s)%8"
                "\n")
                .arg(plan.matrix.name)
                .arg(plan.cells.size())
                .arg(plan.budget.hostBytes / kGiB, 0, 'f', 2)
                .arg(plan.budget.hostSource)
                .arg(plan.budget.deviceBytes / kGiB, 0, 'f', 2)
                .arg(plan.budget.deviceSource)
                .arg(plan.budget.gpus)
                .arg(per);
        for (const auto& pc : plan.cells) {
            text += QString("%1 %2  host %3 GiB%4  binding %5%6%7\n")
                        .arg(pc.cell.id, -32)
                        .arg(pc.estimate.feasible ? "feasible  " : "INFEASIBLE")
                        .arg(pc.estimate.host.total() / kGiB, 6, 'f', 2)
                        .arg(pc.estimate.device.used
                                 ? QString("  device %1 GiB")
                                       .arg(pc.estimate.device.total() / kGiB, 6, 'f', 2)
                                 : QString())
                        .arg(feasibility::toString(pc.estimate.binding))
                        .arg(pc.estimate.reason.isEmpty() ? QString()
                                                          : "  (" + pc.estimate.reason + ")")
                        .arg(plan.budget.perNode ? QString("  on %1 node(s): %2")
                                                       .arg(pc.nodes.size())
                                                       .arg(feasibility::nodeDemandText(pc))
                                                 : QString());
            if (pc.cell.isSweep()) {
                const auto mib = [](double b) { return QString::number(b / 1048576.0, 'g', 6); };
                text +=
                    QString("    sweep %1 to %2 MiB%3\n")
                        .arg(pc.cell.model.sweep.collectives.join(','), mib(pc.cell.sweepMaxBytes))
                        .arg(pc.cell.sweepCappedFrom ? " (" + feasibility::sweepCapText(pc) + ")"
                                                     : QString());
            }
        }
        printText(text);
        return Ok;
    } catch (const matrix::MatrixError& e) {
        printError(QString::fromStdString(e.what()));
        return BadInput;
    }
}

} // namespace commprof::cli
