// commprof plan MATRIX.yaml [--profile FILE] [--host-budget-gib X] [--device-budget-gib Y] [--gpus
// N] [--launcher local|slurm] [--json]

#include "cli_common.h"

#include "feasibility/plan.h"

namespace commprof::cli {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kMaxBudgetGib = 1.0e6; // as a matrix's budget section allows
constexpr int kMaxGpus = 1024;

} // namespace

int planCommand(const QStringList& args) {
    const QString use = "commprof plan MATRIX.yaml [--profile FILE] [--host-budget-gib X] "
                        "[--device-budget-gib Y] [--gpus N] [--launcher local|slurm] [--json]";
    QString path;
    bool json = false;
    feasibility::PlanOptions options;
    for (int i = 0; i < args.size(); ++i) {
        const QString& a = args[i];
        auto value = [&](double& out) {
            bool ok = false;
            out = i + 1 < args.size() ? args[++i].toDouble(&ok) : 0;
            return ok && out > 0 && out <= kMaxBudgetGib;
        };
        double v = 0;
        if (a == "--json") {
            json = true;
        } else if (a == "--profile" && i + 1 < args.size()) {
            options.profilePath = args[++i];
        } else if (a == "--launcher" && i + 1 < args.size()) {
            if (!parseLauncher(args[++i], options.launcher)) {
                return usage(use);
            }
        } else if (a == "--host-budget-gib") {
            if (!value(v)) {
                return usage(use);
            }
            options.overrides.hostGib = v;
        } else if (a == "--device-budget-gib") {
            if (!value(v)) {
                return usage(use);
            }
            options.overrides.deviceGib = v;
        } else if (a == "--gpus") {
            bool ok = false;
            const int n = i + 1 < args.size() ? args[++i].toInt(&ok) : -1;
            if (!ok || n < 0 || n > kMaxGpus) {
                return usage(use);
            }
            options.overrides.gpus = n;
        } else if (a.startsWith("--") || !path.isEmpty()) {
            return usage(use);
        } else {
            path = a;
        }
    }
    if (path.isEmpty()) {
        return usage(use);
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
                        .arg(pc.cell.sweepCappedFrom
                                 ? QString(" (capped from %1 MiB to fit the budget)")
                                       .arg(mib(*pc.cell.sweepCappedFrom))
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
