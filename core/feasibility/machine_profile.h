// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A machine profile (configs/machines/*.yaml): budgets, GPU count and coefficient overrides.
// Budgets resolve in this order: command line, profile, the matrix's budget section, the probe.

#include "feasibility/footprint.h"
#include "matrix/matrix.h"
#include "platform/host_memory.h"
#include "platform/slurm_cluster.h"

#include <optional>

namespace commprof::feasibility {

// What the command line sets; a profile sets the same.
struct BudgetOverrides {
    std::optional<double> hostGib;
    std::optional<double> deviceGib;
    std::optional<int> gpus;
};

struct MachineProfile : BudgetOverrides {
    QString name;
    Coefficients coefficients;
};

MachineProfile loadProfile(const QString& path); // throws matrix::MatrixError

// What "auto" budgets are made from; read from this machine unless given.
struct MachineFacts {
    platform::HostMemory memory;
    QList<platform::GpuInfo> gpus;
    // Under Slurm the budgets are per node: the smallest node of the partition (or of the
    // allocation) as scontrol describes it; this machine's figures when Slurm cannot be asked.
    std::optional<platform::SlurmCluster> slurm;
};
MachineFacts currentMachine();

MachineBudget resolveBudget(const matrix::Matrix& m, const MachineProfile* profile,
                            const BudgetOverrides& cli,
                            const std::optional<MachineFacts>& facts = std::nullopt);

} // namespace commprof::feasibility
