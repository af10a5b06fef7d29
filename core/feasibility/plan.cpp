#include "plan.h"

#include "matrix/cell_json.h"

#include <QJsonArray>

namespace commprof::feasibility {

Plan makePlan(const matrix::Matrix& m, const PlanOptions& options) {
    Plan plan;
    plan.matrix = m;
    std::optional<MachineProfile> profile;
    if (!options.profilePath.isEmpty()) {
        profile = loadProfile(options.profilePath);
        plan.coefficients = profile->coefficients;
    }
    plan.budget = resolveBudget(m, profile ? &*profile : nullptr, options.overrides, options.facts);
    for (const matrix::Cell& cell : matrix::expand(m, {plan.budget.gpus})) {
        plan.cells.push_back({cell, estimate(cell, plan.coefficients, plan.budget)});
    }
    return plan;
}

Plan makePlan(const QString& matrixPath, const PlanOptions& options) {
    return makePlan(matrix::loadMatrix(matrixPath), options);
}

QJsonObject toJson(const Plan& plan) {
    QJsonArray cells;
    for (const auto& pc : plan.cells) {
        cells.append(matrix::cellJson(pc.cell, pc.estimate));
    }
    QJsonArray coefficients;
    for (const auto& c : plan.coefficients.table()) {
        coefficients.append(QJsonObject{
            {"key", c.key}, {"value", c.value}, {"unit", c.unit}, {"source", c.source}});
    }
    return QJsonObject{
        {"matrix", plan.matrix.name},
        {"file", plan.matrix.file},
        {"budget", QJsonObject{{"host_bytes", plan.budget.hostBytes},
                               {"host_source", plan.budget.hostSource},
                               {"device_bytes", plan.budget.deviceBytes},
                               {"device_source", plan.budget.deviceSource},
                               {"gpus", plan.budget.gpus}}},
        {"coefficients", coefficients},
        {"cells", cells},
    };
}

} // namespace commprof::feasibility
