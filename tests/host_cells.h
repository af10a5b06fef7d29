// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The cell the sizing tests work by hand: one model "m" on the gloo_cpu layer, sized against a
// 64 GiB host budget, so that only the rule under test moves the figures.

#include "feasibility/footprint.h"
#include "matrix/matrix.h"

inline commprof::matrix::Cell glooCpuCell(double params, int worldSize) {
    commprof::matrix::Cell cell;
    cell.model.name = "m";
    cell.model.params = params;
    cell.layer = {"gloo_cpu", "gloo", "cpu", "host_loopback", {}};
    cell.worldSize = worldSize;
    return cell;
}

inline commprof::feasibility::MachineBudget hostBudget64GiB() {
    return {64.0 * (1 << 30), 0, 0, "test", "test"};
}
