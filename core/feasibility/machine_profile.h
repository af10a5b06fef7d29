#pragma once
// A machine profile (configs/machines/*.yaml): budgets, GPU count and coefficient overrides.
// Budgets resolve in this order: command line, profile, the matrix's budget section, the probe.

#include "feasibility/footprint.h"
#include "matrix/matrix.h"

#include <optional>

namespace commprof::feasibility {

struct MachineProfile {
    QString name;
    std::optional<double> hostGib;
    std::optional<double> deviceGib;
    std::optional<int> gpus;
    Coefficients coefficients;
};

MachineProfile loadProfile(const QString& path); // throws matrix::MatrixError

struct BudgetOverrides {
    std::optional<double> hostGib;
    std::optional<double> deviceGib;
    std::optional<int> gpus;
};

MachineBudget resolveBudget(const matrix::Matrix& m, const MachineProfile* profile, const BudgetOverrides& cli);

} // namespace commprof::feasibility
