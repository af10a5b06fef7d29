#include "machine_profile.h"

#include "probe/host_memory.h"

#include <yaml-cpp/yaml.h>

#include <QFile>

namespace commprof::feasibility {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

[[noreturn]] void fail(const QString& file, const YAML::Node& n, const QString& key,
                       const QString& msg) {
    throw matrix::MatrixError(file, n.Mark().line + 1, n.Mark().column + 1, key, msg);
}

double positive(const QString& file, const YAML::Node& n, const QString& key) {
    bool ok = false;
    const double v = n.IsScalar() ? QString::fromStdString(n.Scalar()).toDouble(&ok) : 0;
    if (!ok || v <= 0) {
        fail(file, n, key, "expected a positive number");
    }
    return v;
}

} // namespace

MachineProfile loadProfile(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        throw matrix::MatrixError(path, 0, 0, "file", "cannot read: " + f.errorString());
    }
    YAML::Node root;
    try {
        root = YAML::Load(f.readAll().toStdString());
    } catch (const YAML::ParserException& e) {
        throw matrix::MatrixError(path, e.mark.line + 1, e.mark.column + 1, "yaml",
                                  QString::fromStdString(e.msg));
    }
    if (!root.IsMap()) {
        throw matrix::MatrixError(path, 1, 1, "document", "expected a mapping");
    }
    MachineProfile p;
    for (auto it = root.begin(); it != root.end(); ++it) {
        const QString key = QString::fromStdString(it->first.as<std::string>());
        const YAML::Node v = it->second;
        if (key == "name") {
            p.name = QString::fromStdString(v.as<std::string>());
        } else if (key == "host_gib") {
            p.hostGib = positive(path, v, key);
        } else if (key == "device_gib") {
            p.deviceGib = positive(path, v, key);
        } else if (key == "gpus") {
            p.gpus = int(positive(path, v, key));
        } else if (key == "coefficients") {
            if (!v.IsMap()) {
                fail(path, v, key, "expected a mapping of coefficient: value");
            }
            for (auto c = v.begin(); c != v.end(); ++c) {
                const QString ck = QString::fromStdString(c->first.as<std::string>());
                try {
                    p.coefficients.set(ck, positive(path, c->second, ck));
                } catch (const std::invalid_argument& e) {
                    fail(path, c->first, ck, e.what());
                }
            }
        } else {
            fail(path, it->first, key,
                 "unknown key (name, host_gib, device_gib, gpus, coefficients)");
        }
    }
    return p;
}

MachineFacts currentMachine() {
    return {probe::readHostMemory(), probe::queryGpus()};
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
    const double reserve = m.budget.reserveGib * kGiB;
    if (cli.hostGib) {
        b.hostBytes = *cli.hostGib * kGiB;
        b.hostSource = "--host-budget-gib";
    } else if (profile && profile->hostGib) {
        b.hostBytes = *profile->hostGib * kGiB;
        b.hostSource = "profile " + profile->name;
    } else if (m.budget.hostGib) {
        b.hostBytes = *m.budget.hostGib * kGiB - reserve;
        b.hostSource =
            QString("matrix budget.host_gib minus %1 GiB reserve").arg(m.budget.reserveGib);
    } else {
        const probe::HostMemory& mem = machine.memory;
        b.hostBytes = std::max(0.0, mem.budgetBytes() - reserve);
        b.hostSource =
            QString("probe (%1) minus %2 GiB reserve").arg(mem.source()).arg(m.budget.reserveGib);
    }
    const QList<probe::GpuInfo>& gpus = machine.gpus;
    b.gpus = cli.gpus ? *cli.gpus : (profile && profile->gpus) ? *profile->gpus : int(gpus.size());
    if (cli.deviceGib) {
        b.deviceBytes = *cli.deviceGib * kGiB;
        b.deviceSource = "--device-budget-gib";
    } else if (profile && profile->deviceGib) {
        b.deviceBytes = *profile->deviceGib * kGiB;
        b.deviceSource = "profile " + profile->name;
    } else if (m.budget.deviceGib) {
        b.deviceBytes = *m.budget.deviceGib * kGiB - reserve;
        b.deviceSource =
            QString("matrix budget.device_gib minus %1 GiB reserve").arg(m.budget.reserveGib);
    } else if (!gpus.isEmpty()) {
        double smallest = gpus.front().memoryBytes;
        for (const auto& g : gpus) {
            smallest = std::min(smallest, g.memoryBytes);
        }
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
