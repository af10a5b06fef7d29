// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A plan of any size, one cell at a time: `commprof plan` of a million cells holds one cell,
// not a million (docs/cli.md).

#include "feasibility/plan.h"

#include <QByteArray>

#include <functional>

namespace commprof::feasibility {

// The plan's matrix and budget, its cells not yet placed.
Plan planWithoutCells(const matrix::Matrix& m, const PlanOptions& options);
// Each cell of the plan's matrix placed against its budget, in makePlan's order; `visit` may
// take the cell's contents.
void forEachPlannedCell(const Plan& plan, const std::function<void(PlannedCell&)>& visit);
// One element of toJson(plan)'s "cells".
QJsonObject toJson(const PlannedCell& cell);
// toJson(plan) as indented text, in pieces; the cells of a plan without them are placed and
// written one at a time.
void writeJson(const Plan& plan, const std::function<void(const QByteArray&)>& write);

} // namespace commprof::feasibility
