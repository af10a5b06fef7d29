// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One cell as JSON: the shape of `plan --json` rows and of cells/<id>/cell.json.

#include "feasibility/footprint.h"
#include "matrix/matrix.h"

#include <QJsonObject>

namespace commprof::matrix {

QJsonObject cellJson(const Cell& cell, const feasibility::FootprintEstimate& estimate);
QJsonObject runConfigJson(const RunConfig& c);

} // namespace commprof::matrix
