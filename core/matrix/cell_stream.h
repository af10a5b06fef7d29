// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A matrix's cells one at a time: what expand() collects, for a matrix whose cells are too
// many to hold at once (`plan` of a million cells).

#include "matrix/matrix.h"

#include <functional>

namespace commprof::matrix {

// The cells of expand(m, limits), in its order. Throws MatrixError: for the cell count before
// the first cell, for a cell (a duplicate id, too few GPUs) when it comes.
void forEachCell(const Matrix& m, const MachineLimits& limits,
                 const std::function<void(Cell&)>& visit);

// The cells of m.models[model] alone, as forEachCell gives them, for a plan that places again
// one model of a matrix whose axes, other models and ids are unchanged: the checks that span
// models (the cell count, an id two models share) are the caller's to have made.
void forEachCellOfModel(const Matrix& m, std::size_t model, const MachineLimits& limits,
                        const std::function<void(Cell&)>& visit);

} // namespace commprof::matrix
