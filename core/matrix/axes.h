// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The matrix as a product of axes. Expansion, the cell-count limit and `exclude` all walk the
// same product (matrix/exclusion.h), so an axis added here is expanded, counted, excluded and named in the cell id
// alike (docs/architecture.md: how to add an axis).

#include <QString>

#include <functional>
#include <vector>

namespace commprof::matrix {

struct Cell;
struct KnobList;
struct Matrix;
struct ModelSpec;

// One value an axis takes.
struct AxisValue {
    QString text;   // how exclude rules, cell.json's "axes" and the plots name it: "2"
    QString idPart; // how the cell id spells it: "ws2"
    int line = 0;   // where it is written (1-based), for errors about the cells it makes
    int column = 0;
};

struct Axis {
    QString key;    // the key exclude rules and cell.json's "axes" use: "world_size"
    QString plural; // for the cell-count message: "world sizes"
    std::vector<AxisValue> values;
    // Model, layer, world size and repeat are in every id, so ids stay what they always were;
    // any other axis is in the id of every cell of a matrix in which it takes several values.
    bool alwaysInId = false;
    std::function<void(Cell&, std::size_t)> apply; // sets the cell's value
};

// The axes of a model's cells, outermost first: the last one varies fastest.
std::vector<Axis> axesOf(const Matrix& m, const ModelSpec& model);

// The values a DDP setting takes in a model's cells: the model's own, else the defaults' list;
// null when the setting is the same in all of them (then it is no axis).
const KnobList* knobListOf(const Matrix& m, const ModelSpec& model, const QString& key);

// The product of the axes' sizes, as a double so that a matrix of 1e12 cells does not overflow.
double combinations(const std::vector<Axis>& axes);

} // namespace commprof::matrix
