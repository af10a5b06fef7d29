// SPDX-License-Identifier: GPL-3.0-or-later
// commprof plan: a matrix's cells, each with its host and device demand against the budget.

#include "cli_common.h"
#include "model_exporter.h"

#include "feasibility/plan_stream.h"
#include "matrix/cell_stream.h"
#include "spec/units.h"

#include <QThread>

#include <cstdio>

namespace commprof::cli {
namespace {

using spec::kGiB;
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

// More ranks than this machine's cores (the local launcher runs them all here): they take turns
// on the cores, and the step times measured include that waiting. Empty when they fit.
QString oversubscription(const feasibility::Plan& plan, const feasibility::PlannedCell& pc) {
    const int cores = QThread::idealThreadCount();
    if (plan.budget.perNode || cores <= 0 || pc.cell.worldSize <= cores) {
        return {};
    }
    return QString("oversubscribed: %1 ranks on %2 cores").arg(pc.cell.worldSize).arg(cores);
}

// One cell's line (and its sweep's, for a sweep).
QString cellText(const feasibility::Plan& plan, const feasibility::PlannedCell& pc) {
    QString text =
        QString("%1 %2  host %3 GiB%4  binding %5%6%7\n")
            .arg(pc.cell.id, -32)
            .arg(pc.estimate.feasible ? "feasible  " : "INFEASIBLE")
            .arg(pc.estimate.host.total() / kGiB, 6, 'f', 2)
            .arg(pc.estimate.device.used
                     ? QString("  device %1 GiB").arg(pc.estimate.device.total() / kGiB, 6, 'f', 2)
                     : QString())
            .arg(feasibility::toString(pc.estimate.binding))
            .arg((pc.estimate.reason.isEmpty() ? QString() : "  (" + pc.estimate.reason + ")") +
                 (oversubscription(plan, pc).isEmpty() ? QString()
                                                       : "  " + oversubscription(plan, pc)))
            .arg(plan.budget.perNode ? QString("  on %1 node(s): %2")
                                           .arg(pc.nodes.size())
                                           .arg(feasibility::nodeDemandText(pc))
                                     : QString());
    if (const auto& t = pc.cell.model.torchscript) {
        QStringList bases;
        for (const auto* d : {&pc.estimate.host, &pc.estimate.device}) {
            for (const auto& term : d->terms) {
                if (!term.basis.isEmpty()) {
                    bases << term.name + " " + term.basis;
                }
            }
        }
        text += QString("    torchscript %1: %2 parameters (%3 trainable) in %4 tensors; %5; the "
                        "rest from coefficients\n")
                    .arg(t->file)
                    .arg(t->paramsTotal, 0, 'f', 0)
                    .arg(t->paramsTrainable, 0, 'f', 0)
                    .arg(t->tensors)
                    .arg(bases.join(", "));
    }
    if (pc.cell.isSweep()) {
        const auto mib = [](double b) { return QString::number(b / 1048576.0, 'g', 6); };
        text += QString("    sweep %1 to %2 MiB%3\n")
                    .arg(pc.cell.model.sweep.collectives.join(','), mib(pc.cell.sweepMaxBytes))
                    .arg(pc.cell.sweepCappedFrom ? " (" + feasibility::sweepCapText(pc) + ")"
                                                 : QString());
    }
    return text;
}

// Stdout in 64 KiB writes: a plan is printed as its cells are placed, never held whole.
class Output {
public:
    void operator()(const QByteArray& bytes) {
        buffer_ += bytes;
        if (buffer_.size() >= kChunk) {
            flush();
        }
    }
    void flush() {
        std::fwrite(buffer_.constData(), 1, std::size_t(buffer_.size()), stdout);
        std::fflush(stdout);
        buffer_.clear();
    }

private:
    static constexpr qsizetype kChunk = 64 * 1024;
    QByteArray buffer_;
};

} // namespace

int planCommand(const Args& args) {
    const QString path = args.operands().first();
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
        const feasibility::Plan plan = feasibility::planWithoutCells(
            loadDescribing([&path] { return matrix::loadMatrix(path); }), options);
        // Every cell is checked (and counted) before a byte is printed: a matrix whose
        // millionth cell is an error prints the error alone, as a small one does.
        qint64 count = 0;
        matrix::forEachCell(plan.matrix, feasibility::machineLimits(plan),
                            [&count](matrix::Cell&) { ++count; });
        Output out;
        if (args.has("--json")) {
            feasibility::writeJson(plan, [&out](const QByteArray& b) { out(b); });
            out.flush();
            return Ok;
        }
        const QString per = plan.budget.perNode ? " per node" : "";
        out(QString(
                "%1: %2 cells; host budget %3 GiB%8 (%4), device budget %5 GiB (%6), %7 GPU(s)%8"
                "\n")
                .arg(plan.matrix.name)
                .arg(count)
                .arg(plan.budget.hostBytes / kGiB, 0, 'f', 2)
                .arg(plan.budget.hostSource)
                .arg(plan.budget.deviceBytes / kGiB, 0, 'f', 2)
                .arg(plan.budget.deviceSource)
                .arg(plan.budget.gpus)
                .arg(per)
                .toUtf8());
        qint64 oversubscribed = 0;
        int mostRanks = 0;
        feasibility::forEachPlannedCell(plan, [&](const feasibility::PlannedCell& pc) {
            out(cellText(plan, pc).toUtf8());
            if (!oversubscription(plan, pc).isEmpty()) {
                ++oversubscribed;
                mostRanks = std::max(mostRanks, pc.cell.worldSize);
            }
        });
        out.flush();
        if (oversubscribed > 0) {
            printError(QString("warning: %1 cell(s) run more ranks than this machine's %2 cores "
                               "(up to %3): their ranks wait for each other's cores, so their "
                               "step times and exposed communication include that waiting")
                           .arg(oversubscribed)
                           .arg(QThread::idealThreadCount())
                           .arg(mostRanks));
        }
        return Ok;
    } catch (const matrix::MatrixError& e) {
        return badInput(e);
    }
}

} // namespace commprof::cli
