// SPDX-License-Identifier: GPL-3.0-or-later
#include "machine_profile.h"

#include "matrix/yaml_fields.h"
#include "platform/host_memory.h"
#include "spec/units.h"

#include <QSet>

#include <tuple>
#include <utility>

namespace commprof::feasibility {
namespace {

// Far above any real machine or coefficient, and finite.
constexpr double kMaxValue = 1.0e6;

double positive(const QString& file, const YAML::Node& n, const QString& key) {
    bool ok = false;
    const double v = n.IsScalar() ? QString::fromStdString(n.Scalar()).toDouble(&ok) : 0;
    matrix::Ctx{file}.failIf(!ok || !(v > 0) || v > kMaxValue, n, key,
                             QString("expected a number above 0 and at most %1").arg(kMaxValue));
    return v;
}

MachineProfile parseProfile(const QString& path, const YAML::Node& root) {
    if (!root.IsMap()) {
        throw matrix::MatrixError(path, 1, 1, "document", "expected a mapping");
    }
    const matrix::Ctx c{path};
    MachineProfile p;
    QSet<QString> seen;
    for (auto it = root.begin(); it != root.end(); ++it) {
        const QString key = matrix::keyName(path, it->first, seen);
        const YAML::Node v = it->second;
        if (key == "name") {
            c.failIf(!v.IsScalar(), v, key, "expected a string");
            p.name = QString::fromStdString(v.Scalar());
        } else if (key == "host_gib") {
            p.hostGib = positive(path, v, key);
        } else if (key == "device_gib") {
            p.deviceGib = positive(path, v, key);
        } else if (key == "gpus") {
            p.gpus = int(positive(path, v, key));
        } else if (key == "coefficients") {
            c.failIf(!v.IsMap(), v, key, "expected a mapping of coefficient: value");
            QSet<QString> seenCoefficients;
            for (auto c = v.begin(); c != v.end(); ++c) {
                const QString ck = matrix::keyName(path, c->first, seenCoefficients);
                try {
                    p.coefficients.set(ck, positive(path, c->second, ck));
                } catch (const std::invalid_argument& e) {
                    matrix::failAt(path, c->first, ck, e.what());
                }
            }
        } else {
            matrix::failAt(path, it->first, key,
                           "unknown key (name, host_gib, device_gib, gpus, coefficients)");
        }
    }
    return p;
}

// A budget someone set: the command line's (`flag`), the profile's, else the matrix's less its
// reserve (`matrixSource` says so); nothing where each left it to "auto".
using SetBudget = std::pair<double, QString>; // bytes, source
std::optional<SetBudget> setBudget(const std::optional<double>& cliGib, const QString& flag,
                                   const MachineProfile* profile,
                                   std::optional<double> BudgetOverrides::*profileGib,
                                   const std::optional<double>& matrixGib,
                                   const QString& matrixSource, double reserve) {
    if (cliGib) {
        return SetBudget{*cliGib * spec::kGiB, flag};
    }
    if (profile && profile->*profileGib) {
        return SetBudget{*(profile->*profileGib) * spec::kGiB, "profile " + profile->name};
    }
    if (matrixGib) {
        return SetBudget{*matrixGib * spec::kGiB - reserve, matrixSource};
    }
    return std::nullopt;
}

} // namespace

MachineProfile loadProfile(const QString& path) {
    const YAML::Node root = matrix::loadYaml(matrix::readYamlFile(path), path);
    try {
        return parseProfile(path, root);
    } catch (const YAML::Exception& e) {
        throw matrix::MatrixError(path, e.mark.line + 1, e.mark.column + 1, "yaml",
                                  QString::fromStdString(e.msg));
    }
}

MachineFacts currentMachine() {
    return {platform::readHostMemory(), platform::queryGpus(), std::nullopt};
}

MachineBudget resolveBudget(const matrix::Matrix& m, const MachineProfile* profile,
                            const BudgetOverrides& cli, const std::optional<MachineFacts>& facts) {
    MachineBudget b;
    // The probe runs only for what the command line and profile leave to "auto".
    const bool needHost = !cli.hostGib && !(profile && profile->hostGib) && !m.budget.hostGib;
    const bool needGpus = !cli.gpus && !(profile && profile->gpus);
    const MachineFacts machine = facts                    ? *facts
                                 : (needHost || needGpus) ? currentMachine()
                                                          : MachineFacts{};
    const bool perNode = m.launcher.kind == matrix::LauncherKind::Slurm;
    const platform::SlurmCluster* slurm = perNode && machine.slurm ? &*machine.slurm : nullptr;
    const double reserve = m.budget.reserveGib * spec::kGiB;
    if (const auto set = setBudget(cli.hostGib, "--host-budget-gib", profile,
                                   &MachineProfile::hostGib, m.budget.hostGib,
                                   QString("matrix budget.host_gib%1 minus %2 GiB reserve")
                                       .arg(perNode ? " (per node)" : "")
                                       .arg(m.budget.reserveGib),
                                   reserve)) {
        std::tie(b.hostBytes, b.hostSource) = *set;
    } else if (slurm && slurm->reachable()) {
        b.hostBytes = std::max(0.0, slurm->smallestMemoryBytes() - reserve);
        b.hostSource = QString("scontrol show node: smallest RealMemory of %1 node(s) of %2 minus "
                               "%3 GiB reserve")
                           .arg(slurm->nodes.size())
                           .arg(slurm->allocation.isEmpty() ? "partition " + slurm->partition
                                                            : "allocation " + slurm->allocation)
                           .arg(m.budget.reserveGib);
    } else {
        const platform::HostMemory& mem = machine.memory;
        b.hostBytes = std::max(0.0, mem.budgetBytes() - reserve);
        b.hostSource = QString("probe (%1) minus %2 GiB reserve%3")
                           .arg(mem.source())
                           .arg(m.budget.reserveGib)
                           .arg(!perNode ? QString()
                                : slurm  ? "; Slurm could not be asked: " + slurm->problem
                                         : QString("; Slurm was not asked"));
    }
    const QList<platform::GpuInfo>& gpus = machine.gpus;
    const int autoGpus = slurm && slurm->reachable() ? slurm->smallestGpus() : int(gpus.size());
    b.gpus = cli.gpus ? *cli.gpus : (profile && profile->gpus) ? *profile->gpus : autoGpus;
    b.perNode = perNode;
    b.cpusPerNode = slurm && slurm->reachable() ? slurm->smallestCpus() : 0;
    if (const auto set = setBudget(
            cli.deviceGib, "--device-budget-gib", profile, &MachineProfile::deviceGib,
            m.budget.deviceGib,
            QString("matrix budget.device_gib minus %1 GiB reserve").arg(m.budget.reserveGib),
            reserve)) {
        std::tie(b.deviceBytes, b.deviceSource) = *set;
    } else if (!gpus.isEmpty()) {
        const double smallest =
            std::ranges::min(gpus, {}, &platform::GpuInfo::memoryBytes).memoryBytes;
        b.deviceBytes = std::max(0.0, smallest - reserve);
        b.deviceSource = QString("nvidia-smi (smallest of %1 GPU(s)) minus %2 GiB reserve")
                             .arg(gpus.size())
                             .arg(m.budget.reserveGib);
    } else {
        b.deviceBytes = 0;
        b.deviceSource = "no GPU found (nvidia-smi absent or empty)";
    }
    return b;
}

} // namespace commprof::feasibility
